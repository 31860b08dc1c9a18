// tests/cli/crash-safe-cli-test.cc
// Crash safety of output files (docs/io.md, "Crash-safe output"): real
// tools writing an ark,scp pair (copy-feats) or a model (nnet3-copy) of a
// few MB are killed with SIGKILL after a random delay, again and again,
// alternating between two different outputs. After every kill the files
// under the final names must be byte-identical to one of the two complete
// reference outputs (made by unkilled runs at the same paths), the script
// must match the archive beside it (or be missing, the one state a kill
// between the two renames can leave), and nothing but the outputs and
// stray ".NAME.tmp.*" temporaries may sit in the directory. The delays
// span the measured run time, and the test requires that some kills did
// land mid-write (a temporary was left behind). The seed is printed.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/list-directory.h"
#include "common/testing.h"

extern char **environ;

namespace nnet3 {
namespace testing {
namespace {


bool IsTempOf(const std::string &entry, const std::string &name) {
  std::string prefix = "." + name + ".tmp.";
  return entry.compare(0, prefix.size(), prefix) == 0;
}

// Starts a tool (from the build's tool directory) with its output thrown
// away; returns its pid.
pid_t Spawn(const std::vector<std::string> &args) {
  std::vector<std::string> full = args;
  full[0] = ToolsDir() + "/" + args[0];
  std::vector<char *> argv;
  for (std::string &a : full) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << argv[0];
  return rc == 0 ? pid : -1;
}

// Runs a tool to the end; returns its wall time in seconds (-1 on failure).
double RunToEnd(const std::vector<std::string> &args) {
  auto start = std::chrono::steady_clock::now();
  pid_t pid = Spawn(args);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << "tool " << args[0] << " failed";
    return -1;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start).count();
}

// Starts the tool, kills it after "delay" seconds (if still running).
// Returns true if the kill happened before the tool exited on its own.
bool RunAndKill(const std::vector<std::string> &args, double delay) {
  pid_t pid = Spawn(args);
  if (pid < 0) return false;
  struct timespec ts;
  ts.tv_sec = static_cast<time_t>(delay);
  ts.tv_nsec = static_cast<long>((delay - ts.tv_sec) * 1e9);
  nanosleep(&ts, nullptr);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) {
    EXPECT_EQ(WEXITSTATUS(status), 0) << args[0] << " failed unkilled";
  }
  return WIFSIGNALED(status);
}

// A binary Kaldi feature archive: num_utts float matrices of num_rows x 40,
// with deterministic values.
std::string FeatureArchive(int num_utts, int num_rows, int salt) {
  std::string out;
  const int num_cols = 40;
  auto put_int = [&out](int32_t v) {
    out += '\x04';
    out.append(reinterpret_cast<const char *>(&v), 4);
  };
  uint32_t x = 12345 + salt;
  for (int u = 0; u < num_utts; u++) {
    out += "utt" + std::to_string(1000 + u) + " ";
    out += std::string("\0BFM ", 5);
    put_int(num_rows + (u % 7));
    put_int(num_cols);
    for (int i = 0; i < (num_rows + u % 7) * num_cols; i++) {
      x = x * 1664525u + 1013904223u;
      float f = static_cast<float>(x >> 8) / 16777216.0f * 20.0f - 10.0f;
      out.append(reinterpret_cast<const char *>(&f), 4);
    }
  }
  return out;
}

class CrashSafe : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = std::random_device{}();
    std::printf("crash-safe-cli-test seed: %u\n", seed_);
    rng_.seed(seed_);
  }
  std::string F(const std::string &name) const { return dir_.File(name); }
  // The files in dir_ other than "inputs" and stray temporaries of
  // "outputs"; counts the temporaries in *num_temps.
  std::vector<std::string> Unexpected(const std::set<std::string> &inputs,
                                      const std::vector<std::string> &outputs,
                                      int *num_temps) {
    std::vector<std::string> bad;
    *num_temps = 0;
    for (const std::string &e : ListDirectory(dir_.path())) {
      if (inputs.count(e)) continue;
      if (std::find(outputs.begin(), outputs.end(), e) != outputs.end())
        continue;
      bool temp = false;
      for (const std::string &o : outputs) temp = temp || IsTempOf(e, o);
      if (temp) (*num_temps)++;
      else bad.push_back(e);
    }
    return bad;
  }
  double Uniform(double hi) {
    return std::uniform_real_distribution<double>(0.0, hi)(rng_);
  }

  TempDir dir_;
  unsigned seed_ = 0;
  std::mt19937 rng_;
};

TEST_F(CrashSafe, ArkScpPairSurvivesSigkill) {
  WriteFile(F("a.ark"), FeatureArchive(60, 300, 1));
  WriteFile(F("b.ark"), FeatureArchive(45, 330, 2));
  std::string ark = F("out.ark"), scp = F("out.scp");
  auto args = [&](const std::string &in) {
    return std::vector<std::string>{"copy-feats", "ark:" + F(in),
                                    "ark,scp,t:" + ark + "," + scp};
  };
  // The references, written unkilled at the final paths.
  double t_a = RunToEnd(args("a.ark"));
  std::string ref_ark[2], ref_scp[2];
  ref_ark[0] = ReadFile(ark);
  ref_scp[0] = ReadFile(scp);
  double t_b = RunToEnd(args("b.ark"));
  ref_ark[1] = ReadFile(ark);
  ref_scp[1] = ReadFile(scp);
  ASSERT_GT(t_a, 0);
  ASSERT_GT(t_b, 0);
  ASSERT_NE(ref_ark[0], ref_ark[1]);
  ASSERT_NE(ref_scp[0], ref_scp[1]);
  // The reference pair reads back through the script as the archive, and
  // the archive holds the input's matrices.
  CommandResult r = RunCommand(
      "copy-feats scp:out.scp ark,t:- | cmp - out.ark && "
      "copy-feats ark:b.ark ark,t:- | cmp - out.ark", dir_.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::printf("full runs: %.3f s, %.3f s; ark %zu bytes\n", t_a, t_b,
              ref_ark[0].size());

  const std::set<std::string> inputs = {"a.ark", "b.ark"};
  const int kIterations = 30;
  int killed = 0, mid_write = 0, scp_missing = 0, prev_temps = 0;
  for (int it = 0; it < kIterations; it++) {
    int which = it % 2;  // Writes a's output, then b's, ...
    double delay = Uniform(1.3 * std::max(t_a, t_b));
    if (RunAndKill(args(which == 0 ? "a.ark" : "b.ark"), delay)) killed++;
    int temps = 0;
    std::vector<std::string> bad =
        Unexpected(inputs, {"out.ark", "out.scp"}, &temps);
    EXPECT_TRUE(bad.empty()) << "iteration " << it << ": unexpected file "
                             << bad[0];
    if (temps > prev_temps) mid_write++;
    prev_temps = temps;
    ASSERT_TRUE(FileExists(ark)) << "iteration " << it;
    std::string got_ark = ReadFile(ark);
    int state = got_ark == ref_ark[0] ? 0 : got_ark == ref_ark[1] ? 1 : -1;
    ASSERT_NE(state, -1) << "iteration " << it << " (delay " << delay
                         << " s): out.ark is neither complete output ("
                         << got_ark.size() << " bytes)";
    if (!FileExists(scp)) {
      scp_missing++;  // Killed between the two renames.
      std::printf("iteration %d (delay %.4f s): script missing, archive "
                  "%c\n", it, delay, state == 0 ? 'a' : 'b');
      continue;
    }
    EXPECT_EQ(ReadFile(scp), ref_scp[state])
        << "iteration " << it << ": out.scp does not match out.ark";
  }
  std::printf("%d of %d runs killed, %d mid-write, %d with the script "
              "missing\n", killed, kIterations, mid_write, scp_missing);
  EXPECT_GE(mid_write, 3) << "too few kills landed while writing";
  // A complete run after all that leaves the pair and no new temporary;
  // the strays of killed runs are what "find -name '.*.tmp.*'" removes.
  ASSERT_GT(RunToEnd(args("a.ark")), 0);
  EXPECT_EQ(ReadFile(ark), ref_ark[0]);
  EXPECT_EQ(ReadFile(scp), ref_scp[0]);
  int temps = 0;
  EXPECT_TRUE(Unexpected(inputs, {"out.ark", "out.scp"}, &temps).empty());
  EXPECT_EQ(temps, prev_temps);
  r = RunCommand("find . -name '.*.tmp.*' -delete && ls -A", dir_.path());
  EXPECT_EQ(r.out, "a.ark\nb.ark\nout.ark\nout.scp\n");
}

TEST_F(CrashSafe, ModelSurvivesSigkill) {
  WriteFile(F("big.config"),
            "input-node name=input dim=500\n"
            "component name=affine type=NaturalGradientAffineComponent "
            "input-dim=500 output-dim=800\n"
            "component-node name=affine component=affine input=input\n"
            "output-node name=output input=affine\n");
  ASSERT_GT(RunToEnd({"nnet3-init", "--srand=1", F("big.config"),
                      F("in.raw")}), 0);
  std::string out = F("out.raw");
  auto args = [&](int which) {
    return std::vector<std::string>{
        "nnet3-copy", which == 0 ? "--binary=true" : "--binary=false",
        F("in.raw"), out};
  };
  double t[2];
  std::string ref[2];
  for (int w = 0; w < 2; w++) {
    t[w] = RunToEnd(args(w));
    ASSERT_GT(t[w], 0);
    ref[w] = ReadFile(out);
  }
  ASSERT_NE(ref[0], ref[1]);
  std::printf("full runs: %.3f s, %.3f s; model %zu / %zu bytes\n", t[0],
              t[1], ref[0].size(), ref[1].size());
  const std::set<std::string> inputs = {"big.config", "in.raw"};
  const int kIterations = 20;
  int killed = 0, mid_write = 0, prev_temps = 0;
  for (int it = 0; it < kIterations; it++) {
    int which = it % 2;
    double delay = Uniform(1.3 * std::max(t[0], t[1]));
    if (RunAndKill(args(which), delay)) killed++;
    int temps = 0;
    std::vector<std::string> bad = Unexpected(inputs, {"out.raw"}, &temps);
    EXPECT_TRUE(bad.empty()) << "iteration " << it << ": unexpected file "
                             << bad[0];
    if (temps > prev_temps) mid_write++;
    prev_temps = temps;
    ASSERT_TRUE(FileExists(out));
    std::string got = ReadFile(out);
    ASSERT_TRUE(got == ref[0] || got == ref[1])
        << "iteration " << it << " (delay " << delay
        << " s): out.raw is neither complete model (" << got.size()
        << " bytes)";
  }
  std::printf("%d of %d runs killed, %d mid-write\n", killed, kIterations,
              mid_write);
  EXPECT_GE(mid_write, 2) << "too few kills landed while writing";
  // Whatever is under the final name reads as a model.
  CommandResult r = RunCommand("nnet3-info out.raw", dir_.path());
  EXPECT_EQ(r.exit_status, 0) << r.err;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
