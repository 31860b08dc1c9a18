// tests/cli/kaldi-scripts-cli-test.cc
// Kaldi's steps/nnet3/train_raw_dnn.py and train_dnn.py, stage by stage,
// without the scripts: each command below is one that the scripts issued in
// the end-to-end run of docs/kaldi-scripts.md (run.pl writes it as the first
// line of every log), with its paths pointed at small files made here, and
// its outputs checked the way the scripts read them.
//
// Data: Kaldi's monophone model (tests/data/kaldi/am), hand-built
// transition-id alignments for it (the table comes from final.mdl.txt, see
// common/transition-table.h), per-frame pdfs as raw targets, and features
// whose mean depends on the pdf, so that training has something to learn.
//
// Checked: exit status 0 on the script's command lines; the egs counts and
// the empty archive of nnet3-subset-egs --n=0; the log lines the scripts
// parse, against the scripts' own regular expressions (steps/libs/nnet3/
// train/common.py get_successful_models, report/log_parse.py, steps/info/
// nnet3_dir_info.pl, get_outputs_list, get_input_model_info); the pdf counts
// of post-to-tacc against the alignment; that the validation objective
// improves over the iterations; the combination not worse than the last
// model; the average posterior summing to the number of rows it summed; the
// adjusted priors being that posterior normalised to one. Error paths give
// one ERROR line and exit status 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/testing.h"
#include "common/transition-table.h"

namespace nnet3 {
namespace testing {
namespace {

const int kDim = 6, kPdfs = 17, kSpeakers = 4, kUttsPerSpeaker = 12;

// The network of the run, scaled down: an LDA-like layer over +-2 frames,
// two ReLU + batch-norm layers (the second spliced over +-1), a log-softmax
// output; context 3 left and right, as configs/vars says.
const char *kInitConfig =
    "input-node name=input dim=6\n"
    "output-node name=output input=Append(Offset(input, -2), Offset(input, -1),"
    " input, Offset(input, 1), Offset(input, 2))\n";
const char *kFinalConfig =
    "input-node name=input dim=6\n"
    "component name=lda type=FixedAffineComponent matrix=configs/lda.mat\n"
    "component-node name=lda component=lda input=Append(Offset(input, -2), "
    "Offset(input, -1), input, Offset(input, 1), Offset(input, 2))\n"
    "component name=tdnn1.affine type=NaturalGradientAffineComponent "
    "input-dim=30 output-dim=48 max-change=0.75\n"
    "component-node name=tdnn1.affine component=tdnn1.affine input=lda\n"
    "component name=tdnn1.relu type=RectifiedLinearComponent dim=48 "
    "self-repair-scale=1e-05\n"
    "component-node name=tdnn1.relu component=tdnn1.relu input=tdnn1.affine\n"
    "component name=tdnn1.batchnorm type=BatchNormComponent dim=48 "
    "target-rms=1.0\n"
    "component-node name=tdnn1.batchnorm component=tdnn1.batchnorm "
    "input=tdnn1.relu\n"
    "component name=tdnn2.affine type=NaturalGradientAffineComponent "
    "input-dim=144 output-dim=48 max-change=0.75\n"
    "component-node name=tdnn2.affine component=tdnn2.affine "
    "input=Append(Offset(tdnn1.batchnorm, -1), tdnn1.batchnorm, "
    "Offset(tdnn1.batchnorm, 1))\n"
    "component name=tdnn2.relu type=RectifiedLinearComponent dim=48 "
    "self-repair-scale=1e-05\n"
    "component-node name=tdnn2.relu component=tdnn2.relu input=tdnn2.affine\n"
    "component name=tdnn2.batchnorm type=BatchNormComponent dim=48 "
    "target-rms=1.0\n"
    "component-node name=tdnn2.batchnorm component=tdnn2.batchnorm "
    "input=tdnn2.relu\n"
    "component name=output.affine type=NaturalGradientAffineComponent "
    "input-dim=48 output-dim=17 param-stddev=0.0 bias-stddev=0.0 "
    "max-change=1.5\n"
    "component-node name=output.affine component=output.affine "
    "input=tdnn2.batchnorm\n"
    "component name=output.log-softmax type=LogSoftmaxComponent dim=17\n"
    "component-node name=output.log-softmax component=output.log-softmax "
    "input=output.affine\n"
    "output-node name=output input=output.log-softmax objective=linear\n";

// The scripts' regular expressions (Python/Perl syntax that std::regex's
// ECMAScript grammar reads the same way).
// steps/libs/nnet3/train/common.py, get_successful_models():
const char *kTrainObjfRegex =
    "LOG .* Overall average objective function for 'output' is "
    "([0-9e.\\-+= ]+) over ([0-9e.\\-+]+) frames";
// steps/libs/nnet3/report/log_parse.py, parse_prob_logs(), applied to
// "grep -e KEY compute_prob_*.log" output (file name, ':', line):
const char *kComputeProbRegex =
    ".*compute_prob_.*\\.([0-9]+).log:LOG .nnet3.*compute-prob.*:"
    "PrintTotalStats..:nnet.*diagnostics.cc:[0-9]+. Overall ([a-zA-Z\\-]+) "
    "for 'output'.*is ([0-9.\\-e]+) .*per frame";
// log_parse.py, parse_progress_logs_for_param_diff():
const char *kParamDiffRegex =
    ".*progress\\.([0-9]+)\\.log:LOG.*Relative parameter differences.*"
    "\\[(.*)\\]";

class KaldiScriptsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    tids_ = TidTable();
    ASSERT_EQ(tids_.size(), 43u);
    auto t = [this](int phone, int state, int dst) {
      return FindTid(tids_, phone, state, dst);
    };
    std::mt19937 gen(5);
    std::normal_distribution<double> noise(0.0, 0.5);
    std::uniform_int_distribution<int> phone(2, 5), len(2, 4);
    // Each pdf has its own mean vector, so frames are learnable.
    std::vector<std::vector<double> > means(kPdfs);
    std::uniform_int_distribution<int> level(-2, 2);
    for (auto &m : means)
      for (int d = 0; d < kDim; d++) m.push_back(level(gen));
    std::ostringstream feats, ali1, ali2, targets, utt2spk, spk2utt;
    for (int s = 0; s < kSpeakers; s++) {
      std::string spk = "spk" + std::to_string(s + 1);
      spk2utt << spk;
      for (int u = 0; u < kUttsPerSpeaker; u++) {
        // Zero-padded: the tables are sorted (the scripts' ",s,cs").
        std::string utt =
            spk + (u < 9 ? "-0" : "-") + std::to_string(u + 1);
        spk2utt << " " << utt;
        utt2spk << utt << " " << spk << "\n";
        // Silence (5 states, 2 frames each), then four 3-state phones.
        std::vector<int> a;
        for (int st = 0; st < 5; st++) {
          a.push_back(t(1, st, st));
          a.push_back(t(1, st, st + 1));
        }
        for (int p = 0; p < 4; p++) {
          int ph = phone(gen);
          for (int st = 0; st < 3; st++) {
            int n = len(gen);
            for (int k = 0; k + 1 < n; k++) a.push_back(t(ph, st, st));
            a.push_back(t(ph, st, st + 1));
          }
        }
        std::ostringstream &ali = (s < kSpeakers / 2 ? ali1 : ali2);
        ali << utt;
        targets << utt;
        feats << utt << "  [\n";
        for (size_t f = 0; f < a.size(); f++) {
          int pdf = tids_[a[f]].pdf;
          // post-to-tacc --per-pdf leaves out the last transition-id, as
          // Kaldi's does (its loop over the ids stops one short).
          if (a[f] + 1 < static_cast<int>(tids_.size())) pdf_counts_[pdf] += 1.0;
          ali << " " << a[f];
          targets << " " << pdf;
          for (int d = 0; d < kDim; d++)
            feats << " " << std::round((means[pdf][d] + noise(gen)) * 1000) /
                                1000;
          feats << (f + 1 == a.size() ? " ]\n" : "\n");
        }
        ali << "\n";
        targets << "\n";
        num_frames_ += a.size();
      }
      spk2utt << "\n";
    }
    RunCommand("mkdir -p data ali configs egs", dir_.path());
    WriteFile(dir_.File("feats.txt"), feats.str());
    WriteFile(dir_.File("data/utt2spk"), utt2spk.str());
    WriteFile(dir_.File("data/spk2utt"), spk2utt.str());
    WriteFile(dir_.File("ali1.txt"), ali1.str());
    WriteFile(dir_.File("ali2.txt"), ali2.str());
    WriteFile(dir_.File("targets.txt"), targets.str());
    WriteFile(dir_.File("configs/init.config"), kInitConfig);
    WriteFile(dir_.File("configs/final.config"), kFinalConfig);
    Run("copy-feats ark,t:feats.txt ark,scp:data/feats.ark,data/feats.scp");
    Run("compute-cmvn-stats --spk2utt=ark:data/spk2utt scp:data/feats.scp "
        "ark,scp:data/cmvn.ark,data/cmvn.scp");
    Run("copy-int-vector ark,t:targets.txt "
        "ark,scp:data/targets.ark,data/targets.scp");
    for (int j = 1; j <= 2; j++)
      Run("copy-int-vector ark,t:ali" + std::to_string(j) + ".txt ark:- | "
          "gzip -c > ali/ali." + std::to_string(j) + ".gz");
    Run("cp " + KaldiAmDir() + "/final.mdl " + KaldiAmDir() + "/tree ali/");
    WriteFile(dir_.File("ali/num_jobs"), "2\n");
  }

  CommandResult Run(const std::string &command) {
    CommandResult r = RunCommand(command, dir_.path());
    EXPECT_EQ(r.exit_status, 0) << command << "\n" << r.err;
    return r;
  }
  // A command as run.pl runs it: output and errors to a log file.
  std::string RunLogged(const std::string &log, const std::string &command) {
    Run("( " + command + " ) > " + log + " 2>&1");
    return ReadFile(dir_.File(log));
  }
  void ExpectError(const std::string &command, const std::string &fragment) {
    ExpectOneErrorLine(command, dir_.path(), fragment);
  }

  // The features pipeline of get_egs.sh / get_egs_targets.sh (the script
  // filters the validation utterances with utils/filter_scp.pl first).
  std::string Feats() const {
    return "\"ark,s,cs:apply-cmvn --norm-means=true --norm-vars=false "
           "--utt2spk=ark:data/utt2spk scp:data/cmvn.scp scp:data/feats.scp "
           "ark:- |\"";
  }

  // get_egs_targets.sh (sparse targets) or get_egs.sh (alignments): the
  // training archives egs/egs.{1,2}.ark, the diagnostic and combination egs.
  void MakeEgs(bool from_alignments) {
    std::string egs_opts =
        "--left-context=3 --right-context=3 --compress=true --num-frames=8";
    std::string getter, targets;
    if (from_alignments) {
      Run("for id in 1 2; do gunzip -c ali/ali.$id.gz; done | "
          "copy-int-vector ark:- ark,scp:egs/ali.ark,egs/ali.scp");
      std::string num_pdfs =
          Run("tree-info --print-args=false ali/tree | grep num-pdfs | "
              "awk '{print $2}'").out;
      EXPECT_EQ(num_pdfs, "17\n");
      getter = "nnet3-get-egs --num-pdfs=17 --frame-subsampling-factor=1 " +
               egs_opts;
      targets = "\"ark,s,cs:ali-to-pdf ali/final.mdl scp:egs/ali.scp ark:- | "
                "ali-to-post ark:- ark:- |\"";
    } else {
      getter = "nnet3-get-egs --num-pdfs=17 --frame-subsampling-factor=1 "
               "--length-tolerance=2 " + egs_opts;
      targets = "\"ark,s,cs:ali-to-post scp:data/targets.scp ark:- |\"";
    }
    Run(getter + " " + Feats() + " " + targets + " ark:egs/valid_all.egs");
    // Job 1 of the script's JOB=1:$nj loop, round-robin into two archives.
    CommandResult r =
        Run(getter + " " + Feats() + " " + targets + " ark:- | "
            "nnet3-copy-egs --random=true --srand=1 ark:- "
            "ark:egs/egs_orig.1.1.ark ark:egs/egs_orig.1.2.ark");
    for (int j = 1; j <= 2; j++) {
      std::string n = std::to_string(j);
      Run("nnet3-shuffle-egs --srand=" + n + " \"ark:cat egs/egs_orig.1." + n +
          ".ark|\" ark:egs/egs." + n + ".ark");
    }
    // --n=0: get_egs*.sh always ask for it (no validation frames for the
    // combination set); Kaldi writes an empty archive and succeeds.
    Run("nnet3-subset-egs --n=0 ark:egs/valid_all.egs "
        "ark:egs/valid_combine.egs");
    EXPECT_EQ(ReadFile(dir_.File("egs/valid_combine.egs")), "");
    Run("nnet3-subset-egs --n=40 ark:egs/valid_all.egs "
        "ark:egs/valid_diagnostic.egs");
    Run("nnet3-subset-egs --n=40 ark:egs/valid_all.egs "
        "ark:egs/train_diagnostic.egs");
    Run("nnet3-subset-egs --n=60 ark:egs/valid_all.egs "
        "ark:egs/train_combine.egs");
    Run("cat egs/valid_combine.egs egs/train_combine.egs > egs/combine.egs");
    EXPECT_EQ(CountEgs("egs/valid_diagnostic.egs"), 40);
    EXPECT_EQ(CountEgs("egs/combine.egs"), 60);
    EXPECT_EQ(CountEgs("egs/egs.1.ark") + CountEgs("egs/egs.2.ark"),
              CountEgs("egs/valid_all.egs"));
  }
  int CountEgs(const std::string &rspecifier_file) {
    std::string keys = Run("nnet3-copy-egs ark:" + rspecifier_file +
                           " ark,t:- | grep -c '<Nnet3Eg>' || true").out;
    return std::stoi(keys);
  }

  // The LDA stage and the first layer (compute_preconditioning_matrix,
  // prepare_initial_network).
  void Preconditioning() {
    Run("nnet3-init --srand=-2 configs/init.config init.raw");
    for (int j = 1; j <= 2; j++)
      Run("nnet3-acc-lda-stats --rand-prune=4.0 init.raw "
          "ark:egs/egs." + std::to_string(j) + ".ark " + std::to_string(j) +
          ".lda_stats");
    Run("sum-lda-accs lda_stats 1.lda_stats 2.lda_stats");
    Run("nnet-get-feature-transform lda.mat lda_stats");
    Run("ln -sf ../lda.mat configs/lda.mat");
    Run("nnet3-init --srand=-3 init.raw configs/final.config 0.raw");
  }

  // One training job of train_new_models(): iteration `iter`, job `job`,
  // reading the model given by `model` ("N.raw" or "N.mdl").
  std::string TrainJob(int iter, int job, int num_jobs,
                       const std::string &model, const std::string &extra) {
    std::string it = std::to_string(iter), jb = std::to_string(job);
    std::string cache =
        (iter > 0 ? "--read-cache=cache." + it : std::string()) +
        (job == 1 ? " --write-cache=cache." + std::to_string(iter + 1) : "");
    std::ostringstream l2;
    l2 << 1.0 / num_jobs;
    std::string archive = std::to_string((iter + job - 1) % 2 + 1);
    std::string frame = std::to_string((iter + job) % 8);
    return RunLogged(
        "log/train." + it + "." + jb + ".log",
        "nnet3-train --use-gpu=no " + cache + " --print-interval=10 "
        "--momentum=0.0 --max-param-change=" +
        (iter == 0 ? "1.41421356237" : "2.0") + " " + extra +
        " --l2-regularize-factor=" + l2.str() + " --srand=" + it +
        " \"nnet3-copy --learning-rate=0.004 --scale=1.0 " + model + " - |\" "
        "\"ark,bg:nnet3-copy-egs --frame=" + frame + " ark:egs/egs." +
        archive + ".ark ark:- | nnet3-shuffle-egs --buffer-size=5000 "
        "--srand=" + it + " ark:- ark:- | nnet3-merge-egs "
        "--minibatch-size=" + (iter == 0 ? "16" : "32") +
        " ark:- ark:- |\" " + std::to_string(iter + 1) + "." + jb + ".raw");
  }

  // compute_train_cv_probabilities(): the valid log, prefixed with its file
  // name as "grep -e log-likelihood compute_prob_valid.*.log" prints it.
  double ComputeProbValid(const std::string &iter, const std::string &model) {
    std::string log = "compute_prob_valid." + iter + ".log";
    std::string text = RunLogged(
        "log/" + log,
        "nnet3-compute-prob \"" + model + "\" \"ark,bg:nnet3-copy-egs "
        "ark:egs/valid_diagnostic.egs ark:- | nnet3-merge-egs "
        "--minibatch-size=1:64 ark:- ark:- |\"");
    // nnet3_dir_info.pl reads every iteration, "final" and "combined"
    // included.
    std::smatch m;
    EXPECT_TRUE(std::regex_search(
        text, std::regex("Overall accuracy for 'output' is (\\S+) per frame")))
        << text;
    if (!std::regex_search(
            text, m,
            std::regex("Overall log-likelihood for 'output' is (\\S+) per "
                       "frame"))) {
      ADD_FAILURE() << text;
      return 0.0;
    }
    double loglike = std::stod(m[1].str());
    // log_parse.py reads the numbered iterations.
    if (iter == "final" || iter == "combined") return loglike;
    std::regex re(kComputeProbRegex);
    std::map<std::string, double> found;
    std::istringstream is(text);
    std::string line;
    while (std::getline(is, line)) {
      std::string grepped = "exp/x/log/" + log + ":" + line;
      if (std::regex_search(grepped, m, re)) {
        EXPECT_EQ(m[1].str(), iter);
        found[m[2].str()] = std::stod(m[3].str());
      }
    }
    EXPECT_EQ(found.count("log-likelihood"), 1u) << text;
    EXPECT_EQ(found.count("accuracy"), 1u) << text;
    EXPECT_EQ(found["log-likelihood"], loglike);
    return loglike;
  }

  // get_successful_models() on one training log: the objective it reads.
  double ParsedTrainObjf(const std::string &log_text) {
    std::regex re(kTrainObjfRegex);
    std::istringstream is(log_text);
    std::string line;
    double objf = -100000.0;
    while (std::getline(is, line)) {
      std::smatch m;
      if (std::regex_search(line, m, re)) {
        std::istringstream v(m[1].str());
        std::string last, tok;
        while (v >> tok) last = tok;
        objf = std::stod(last);
      }
    }
    EXPECT_GT(objf, -100000.0) << log_text;
    return objf;
  }

  // compute_progress(): nnet3-info and nnet3-show-progress, and what
  // nnet3_dir_info.pl and log_parse.py take from them.
  void Progress(int iter, const std::string &prev, const std::string &cur) {
    std::string log = "progress." + std::to_string(iter) + ".log";
    std::string text = RunLogged(
        "log/" + log, "nnet3-info " + cur + " && nnet3-show-progress "
        "--use-gpu=no " + prev + " " + cur);
    EXPECT_TRUE(std::regex_search(text, std::regex("\nnum-parameters: \\S+")))
        << text;
    EXPECT_TRUE(std::regex_search(
        text, std::regex("\noutput-node.* name=output .*dim=17")))
        << text;
    EXPECT_TRUE(std::regex_search(
        text, std::regex("\ninput-node.* name=input .*dim=6")))
        << text;
    std::regex re(kParamDiffRegex);
    std::istringstream is(text);
    std::string line;
    int matched = 0;
    while (std::getline(is, line)) {
      std::smatch m;
      std::string grepped = "exp/x/log/" + log + ":" + line;
      if (!std::regex_search(grepped, m, re)) continue;
      matched++;
      // parse_difference_string(): "name:value" pairs.
      std::istringstream parts(m[2].str());
      std::string part;
      std::vector<std::string> names;
      while (parts >> part) {
        size_t colon = part.find(':');
        ASSERT_NE(colon, std::string::npos) << line;
        names.push_back(part.substr(0, colon));
        EXPECT_GT(std::stod(part.substr(colon + 1)), 0.0) << line;
      }
      EXPECT_EQ(names, (std::vector<std::string>{
                           "tdnn1.affine", "tdnn2.affine", "output.affine"}));
    }
    EXPECT_EQ(matched, 1) << text;
  }

  std::vector<Tid> tids_;
  std::map<int, double> pdf_counts_;
  size_t num_frames_ = 0;
  TempDir dir_;
};

TEST_F(KaldiScriptsCli, TrainRawDnnStages) {
  Run("mkdir -p log");
  // Script-side queries.
  EXPECT_EQ(Run("feat-to-dim --print-args=false scp:data/feats.scp -").out,
            "6\n");
  EXPECT_EQ(Run("feat-to-len --print-args=false scp:data/feats.scp").out,
            std::to_string(num_frames_) + "\n");
  MakeEgs(false);
  Preconditioning();
  // get_input_model_info(): "nnet3-info 0.raw | head -4".
  std::string head = Run("nnet3-info 0.raw | head -4").out;
  EXPECT_NE(head.find("left-context: 3\n"), std::string::npos) << head;
  EXPECT_NE(head.find("right-context: 3\n"), std::string::npos) << head;

  double first = ComputeProbValid("0", "0.raw");
  // Iteration 0: one job on a halved minibatch, its model selected.
  double objf0 = ParsedTrainObjf(
      TrainJob(0, 1, 1, "0.raw",
               "--backstitch-training-scale=0.0 "
               "--backstitch-training-interval=1"));
  EXPECT_LT(objf0, 0.0);
  Run("nnet3-copy 1.1.raw 1.raw");
  // Iterations 1..5: two jobs averaged, the computation cache handed on,
  // backstitch on the odd iterations (every second minibatch).
  for (int iter = 1; iter <= 5; iter++) {
    std::string bs = iter % 2 ? "--backstitch-training-scale=0.3 "
                                "--backstitch-training-interval=2"
                              : "--backstitch-training-scale=0.0 "
                                "--backstitch-training-interval=1";
    std::string model = std::to_string(iter) + ".raw";
    for (int job = 1; job <= 2; job++) {
      std::string text = TrainJob(iter, job, 2, model, bs);
      ParsedTrainObjf(text);
      if (iter % 2) {
        EXPECT_NE(text.find("Overall average objective function for "
                            "'output_backstitch'"),
                  std::string::npos)
            << text;
      }
    }
    EXPECT_TRUE(FileExists(dir_.File("cache." + std::to_string(iter + 1))));
    std::string next = std::to_string(iter + 1);
    RunLogged("log/average." + std::to_string(iter) + ".log",
              "nnet3-average " + next + ".1.raw " + next + ".2.raw " + next +
                  ".raw");
    ComputeProbValid(std::to_string(iter), model);
    Progress(iter, std::to_string(iter - 1) + ".raw", model);
  }
  double last = ComputeProbValid("6", "6.raw");
  EXPECT_GT(last, first + 0.5) << "validation log-likelihood " << first
                               << " -> " << last;

  // get_outputs_list().
  EXPECT_EQ(Run("nnet3-info --print-args=false 6.raw | grep -e 'output-node' "
                "| cut -f2 -d' ' | cut -f2 -d'='").out,
            "output\n");

  // combine_models(): the freshest model first.
  std::string combine = RunLogged(
      "log/combine.log",
      "nnet3-combine --use-gpu=no --max-objective-evaluations=30 --verbose=3 "
      "6.raw 5.raw 4.raw \"ark,bg:nnet3-copy-egs ark:egs/combine.egs ark:- | "
      "nnet3-merge-egs --minibatch-size=1:32 ark:- ark:- |\" final.raw");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      combine, m,
      std::regex("objective function using the last model is (\\S+)")))
      << combine;
  double last_objf = std::stod(m[1].str());
  ASSERT_TRUE(std::regex_search(
      combine, m,
      std::regex("Combining (\\d+) nnets, objective function changed from "
                 "(\\S+) to (\\S+)")))
      << combine;
  EXPECT_GE(std::stoi(m[1].str()), 1);
  EXPECT_EQ(std::stod(m[2].str()), last_objf);
  EXPECT_GE(std::stod(m[3].str()), last_objf);
  ComputeProbValid("final", "final.raw");

  // compute_average_posterior() with --compute-average-posteriors=true.
  for (int j = 1; j <= 2; j++) {
    std::string n = std::to_string(j);
    int num_egs = CountEgs("egs/egs." + n + ".ark");
    ASSERT_GE(num_egs, 128);
    std::string text = RunLogged(
        "log/get_post.final." + n + ".log",
        "nnet3-copy-egs ark:egs/egs." + n + ".ark ark:- | nnet3-subset-egs "
        "--srand=" + n + " --n=200 ark:- ark:- | nnet3-merge-egs "
        "--minibatch-size=128 ark:- ark:- | nnet3-compute-from-egs "
        "--use-gpu=no --apply-exp=true final.raw ark:- ark:- | "
        "matrix-sum-rows ark:- ark:- | vector-sum ark:- post.final." + n +
            ".vec");
    ASSERT_TRUE(std::regex_search(
        text, m, std::regex("matrices, (\\d+) rows in total")))
        << text;
    std::vector<double> post = NumbersAfter(
        Run("copy-vector --binary=false post.final." + n + ".vec -").out, "");
    ASSERT_EQ(post.size(), 17u);
    double sum = 0.0;
    for (double p : post) sum += p;
    // Each row is a distribution over the 17 outputs.
    EXPECT_NEAR(sum, std::stod(m[1].str()), 1e-3 * sum);
    // Whole minibatches of 128 egs, 8 frames each (the rest is discarded).
    EXPECT_EQ(std::stoi(m[1].str()), std::min(num_egs, 200) / 128 * 128 * 8);
  }
  Run("vector-sum post.final.1.vec post.final.2.vec post.final.vec");
}

TEST_F(KaldiScriptsCli, TrainDnnAcousticModelStages) {
  Run("mkdir -p log");
  // Script-side queries on the alignment directory.
  EXPECT_EQ(Run("tree-info ali/tree 2>/dev/null | grep num-pdfs").out,
            "num-pdfs 17\n");
  EXPECT_EQ(Run("am-info ali/final.mdl 2>/dev/null | grep -w pdfs").out,
            "number of pdfs 17\n");
  MakeEgs(true);
  Preconditioning();

  // compute_presoftmax_prior_scale(): the pdf counts of the alignments.
  for (int j = 1; j <= 2; j++) {
    std::string n = std::to_string(j);
    RunLogged("log/acc_pdf." + n + ".log",
              "ali-to-post \"ark:gunzip -c ali/ali." + n + ".gz|\" ark:- | "
              "post-to-tacc --per-pdf=true ali/final.mdl ark:- pdf_counts." +
                  n);
  }
  Run("vector-sum --binary=false pdf_counts.1 pdf_counts.2 pdf_counts");
  std::vector<double> counts =
      NumbersAfter(ReadFile(dir_.File("pdf_counts")), "");
  ASSERT_EQ(counts.size(), 17u);
  for (int p = 0; p < 17; p++)
    EXPECT_EQ(counts[p], pdf_counts_.count(p) ? pdf_counts_[p] : 0.0) << p;

  // prepare_initial_acoustic_model().
  RunLogged("log/init_mdl.log",
            "nnet3-am-init ali/final.mdl 0.raw - | nnet3-am-train-transitions "
            "- \"ark:gunzip -c ali/ali.*.gz|\" 0.mdl");
  EXPECT_NE(Run("nnet3-am-info 0.mdl").out.find("num-pdfs: 17\n"),
            std::string::npos);

  double first = ComputeProbValid("0", "nnet3-am-copy --raw=true 0.mdl - |");
  TrainJob(0, 1, 1, "0.mdl",
           "--backstitch-training-scale=0.0 --backstitch-training-interval=1");
  RunLogged("log/select.0.log",
            "nnet3-copy 1.1.raw - | nnet3-am-copy --set-raw-nnet=- 0.mdl "
            "1.mdl");
  for (int iter = 1; iter <= 4; iter++) {
    std::string it = std::to_string(iter), next = std::to_string(iter + 1);
    for (int job = 1; job <= 2; job++)
      ParsedTrainObjf(TrainJob(iter, job, 2, it + ".mdl",
                               "--backstitch-training-scale=0.0 "
                               "--backstitch-training-interval=1"));
    RunLogged("log/average." + it + ".log",
              "nnet3-average " + next + ".1.raw " + next + ".2.raw - | "
              "nnet3-am-copy --set-raw-nnet=- " + it + ".mdl " + next +
                  ".mdl");
    Progress(iter, std::to_string(iter - 1) + ".mdl", it + ".mdl");
  }
  double last = ComputeProbValid("5", "nnet3-am-copy --raw=true 5.mdl - |");
  EXPECT_GT(last, first + 0.5) << first << " -> " << last;

  RunLogged("log/combine.log",
            "nnet3-combine --use-gpu=no --max-objective-evaluations=30 "
            "--verbose=3 5.mdl 4.mdl 3.mdl \"ark,bg:nnet3-copy-egs "
            "ark:egs/combine.egs ark:- | nnet3-merge-egs --minibatch-size=1:32 "
            "ark:- ark:- |\" \"| nnet3-am-copy --set-raw-nnet=- 5.mdl "
            "combined.mdl\"");
  double combined =
      ComputeProbValid("combined", "nnet3-am-copy --raw=true combined.mdl - |");
  EXPECT_GT(combined, first + 0.5);

  // Priors: the average posterior of the combined model, then
  // nnet3-am-adjust-priors.
  int rows = 0;
  for (int j = 1; j <= 2; j++) {
    std::string n = std::to_string(j);
    std::string text = RunLogged(
              "log/get_post.combined." + n + ".log",
              "nnet3-copy-egs ark:egs/egs." + n + ".ark ark:- | "
              "nnet3-subset-egs --srand=" + n + " --n=200 ark:- ark:- | "
              "nnet3-merge-egs --minibatch-size=128 ark:- ark:- | "
              "nnet3-compute-from-egs --use-gpu=no --apply-exp=true "
              "combined.mdl ark:- ark:- | matrix-sum-rows ark:- ark:- | "
              "vector-sum ark:- post.combined." + n + ".vec");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        text, m, std::regex("matrices, (\\d+) rows in total")))
        << text;
    rows += std::stoi(m[1].str());
  }
  EXPECT_GT(rows, 0);
  RunLogged("log/vector_sum.combined.log",
            "vector-sum post.combined.1.vec post.combined.2.vec "
            "post.combined.vec");
  RunLogged("log/adjust_priors.final.log",
            "nnet3-am-adjust-priors combined.mdl post.combined.vec final.mdl");
  std::vector<double> post = NumbersAfter(
      Run("copy-vector --binary=false post.combined.vec -").out, "");
  ASSERT_EQ(post.size(), 17u);
  double total = 0.0;
  for (double p : post) total += p;
  EXPECT_NEAR(total, rows, 1e-3 * rows);
  std::vector<double> priors = NumbersAfter(
      Run("nnet3-am-copy --binary=false final.mdl -").out, "<Priors>");
  ASSERT_EQ(priors.size(), 17u);
  double prior_sum = 0.0;
  for (int p = 0; p < 17; p++) {
    EXPECT_NEAR(priors[p], post[p] / total, 1e-5) << p;
    prior_sum += priors[p];
  }
  EXPECT_NEAR(prior_sum, 1.0, 1e-5);
}

TEST_F(KaldiScriptsCli, Errors) {
  Run("nnet3-init configs/init.config init.raw");
  WriteFile(dir_.File("small.config"),
            "input-node name=input dim=6\n"
            "component name=a type=NaturalGradientAffineComponent input-dim=6 "
            "output-dim=5\n"
            "component-node name=a component=a input=input\n"
            "output-node name=output input=a objective=linear\n");
  Run("nnet3-init small.config small.raw");
  // A network whose output does not match the model's pdfs.
  ExpectError("nnet3-am-init ali/final.mdl small.raw x.mdl",
              "17 pdfs but the network's output has dimension 5");
  // Kaldi asserts this: backstitch steps need zero momentum.
  MakeEgs(false);
  ExpectError("nnet3-train --use-gpu=no --momentum=0.5 "
              "--backstitch-training-scale=0.3 small.raw "
              "\"ark:nnet3-merge-egs ark:egs/egs.1.ark ark:- |\" out.raw",
              "--momentum");
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
