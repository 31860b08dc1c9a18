// feat/feature-tool.cc
#include "feat/feature-tool.h"

#include <atomic>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "feat/htk-holder.h"
#include "feat/wave-reader.h"
#include "matrix/table-types.h"
#include "util/table.h"

namespace nnet3 {

void FeatureToolOptions::Register(OptionsItf *opts, bool with_vtln) {
  opts->Register("output-format", &output_format,
                 "Format of the output: kaldi or htk (fbank and MFCC; HTK "
                 "files are big-endian with a 10 ms frame period)");
  opts->Register("subtract-mean", &subtract_mean,
                 "Subtract each utterance's mean feature vector (not "
                 "recommended; use CMVN instead)");
  if (with_vtln) {
    opts->Register("vtln-warp", &vtln_warp,
                   "VTLN warp factor (when --vtln-map is not given)");
    opts->Register("vtln-map", &vtln_map_rspecifier,
                   "Map from utterance (or, with --utt2spk, speaker) to VTLN "
                   "warp factor (rspecifier)");
    opts->Register("utt2spk", &utt2spk_rspecifier,
                   "Utterance to speaker map, for per-speaker --vtln-map "
                   "(rspecifier)");
  }
  opts->Register("channel", &channel,
                 "Channel to use (-1: expect mono, 0: left, 1: right, ...)");
  opts->Register("min-duration", &min_duration,
                 "Skip utterances shorter than this (seconds)");
  opts->Register("write-utt2dur", &utt2dur_wspecifier,
                 "Also write each utterance's duration in seconds to this "
                 "wspecifier, e.g. ark,t:utt2dur");
  opts->Register("num-threads", &num_threads,
                 "Compute this many utterances in parallel (the output is "
                 "the same as with 1)");
}

namespace {

// One utterance on its way through the tool.
struct Job {
  std::string key;
  Vector<BaseFloat> samples;
  BaseFloat samp_freq = 0, duration = 0, warp = 1;
  Matrix<BaseFloat> features;
  std::exception_ptr error;
};

void ComputeJob(const FeatureToolOptions &opts, int32 seed,
                FeatureExtractor *extractor, Job *job) {
  try {
    try {
      extractor->ComputeFeatures(job->samples, job->samp_freq, job->warp,
                                 UtteranceSeed(seed, job->key),
                                 &job->features);
    } catch (const UserError &e) {
      NNET3_ERR << "Failed to compute features for utterance " << job->key
                << ": " << e.message();
    }
    Matrix<BaseFloat> &f = job->features;
    if (opts.subtract_mean && f.NumRows() > 0) {
      Vector<BaseFloat> mean(f.NumCols());
      mean.AddRowSumMat(1.0f / f.NumRows(), f, 0.0f);
      f.AddVecToRows(-1.0f, mean);
    }
  } catch (...) {
    job->error = std::current_exception();
  }
}

// Computes the jobs on num_threads threads (extractors[t] for thread t).
void ComputeBatch(const FeatureToolOptions &opts, int32 seed,
                  std::vector<std::unique_ptr<FeatureExtractor> > *extractors,
                  std::vector<Job> *jobs) {
  std::atomic<size_t> next(0);
  auto work = [&](size_t t) {
    for (size_t j = next++; j < jobs->size(); j = next++)
      ComputeJob(opts, seed, (*extractors)[t].get(), &(*jobs)[j]);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < extractors->size(); t++) threads.emplace_back(work, t);
  work(0);
  for (std::thread &th : threads) th.join();
}

}  // namespace

int ComputeFeaturesForTable(const std::string &wav_rspecifier,
                            const std::string &feats_wspecifier,
                            const FeatureToolOptions &opts,
                            FeatureExtractor *extractor) {
  const bool htk = opts.output_format == "htk";
  if (htk && opts.htk_sample_kind < 0)
    NNET3_ERR << "--output-format=htk is not available for this tool";
  if (!htk && opts.output_format != "kaldi")
    NNET3_ERR << "Invalid --output-format=" << opts.output_format
              << " (expected kaldi or htk)";
  if (!opts.utt2spk_rspecifier.empty() && opts.vtln_map_rspecifier.empty())
    NNET3_ERR << "--utt2spk is only used with --vtln-map";
  if (opts.num_threads < 1)
    NNET3_ERR << "Invalid --num-threads=" << opts.num_threads;
  SequentialWaveReader reader(wav_rspecifier);
  BaseFloatMatrixWriter writer;
  TableWriter<HtkMatrixHolder> htk_writer;
  if (htk)
    htk_writer.Open(feats_wspecifier);
  else
    writer.Open(feats_wspecifier);
  BaseFloatWriter utt2dur_writer;
  if (!opts.utt2dur_wspecifier.empty())
    utt2dur_writer.Open(opts.utt2dur_wspecifier);
  RandomAccessTableReaderMapped<BasicHolder<BaseFloat> > vtln_map;
  if (!opts.vtln_map_rspecifier.empty())
    vtln_map.Open(opts.vtln_map_rspecifier, opts.utt2spk_rspecifier);
  const int32 seed = extractor->GetFrameOptions().dither_seed;

  // extractors[0] is the caller's; the others are copies for threads.
  std::vector<std::unique_ptr<FeatureExtractor> > extractors;
  extractors.emplace_back(extractor->Copy());
  for (int32 t = 1; t < opts.num_threads; t++)
    extractors.emplace_back(extractor->Copy());
  const size_t batch_size = opts.num_threads == 1 ? 1 : 4 * opts.num_threads;

  int32 num_utts = 0, num_success = 0;
  std::vector<Job> batch;
  auto flush = [&]() {
    ComputeBatch(opts, seed, &extractors, &batch);
    for (Job &job : batch) {
      if (job.error) std::rethrow_exception(job.error);
      if (htk) {
        HtkHeader header;
        header.num_samples = job.features.NumRows();
        header.sample_period = 100000;  // 10 ms, as Kaldi writes it
        header.sample_size =
            static_cast<int16>(sizeof(float) * job.features.NumCols());
        header.sample_kind = static_cast<uint16>(opts.htk_sample_kind);
        HtkMatrixHolder::T value;
        value.first.Swap(&job.features);
        value.second = header;
        htk_writer.Write(job.key, value);
      } else {
        writer.Write(job.key, job.features);
      }
      if (utt2dur_writer.IsOpen()) utt2dur_writer.Write(job.key, job.duration);
      NNET3_VLOG(2) << "Processed features for key " << job.key;
      num_success++;
    }
    batch.clear();
  };
  for (; !reader.Done(); reader.Next()) {
    num_utts++;
    std::string utt = reader.Key();
    const WaveData *wave_ptr;
    try {
      wave_ptr = &reader.Value();
    } catch (...) {
      flush();  // what was read before the bad entry is still written
      throw;
    }
    const WaveData &wave = *wave_ptr;
    if (wave.Duration() < opts.min_duration) {
      NNET3_WARN << "Utterance " << utt << " is too short ("
                 << wave.Duration() << " s < --min-duration="
                 << opts.min_duration << "): producing no output";
      continue;
    }
    int32 num_chan = wave.Data().NumRows(), this_chan = opts.channel;
    if (opts.channel == -1) {
      this_chan = 0;
      if (num_chan != 1)
        NNET3_WARN << "Utterance " << utt << " has " << num_chan
                   << " channels but --channel was not given; using "
                   << "channel 0";
    } else if (opts.channel < -1 || this_chan >= num_chan) {
      NNET3_WARN << "Utterance " << utt << " has " << num_chan
                 << " channel(s) but --channel=" << opts.channel
                 << ": producing no output";
      continue;
    }
    BaseFloat warp = opts.vtln_warp;
    if (vtln_map.IsOpen()) {
      if (!vtln_map.HasKey(utt)) {
        NNET3_WARN << "No --vtln-map entry for utterance " << utt
                   << (opts.utt2spk_rspecifier.empty() ? "" : " (or its "
                       "speaker)")
                   << ": producing no output";
        continue;
      }
      warp = vtln_map.Value(utt);
    }
    batch.emplace_back();
    Job &job = batch.back();
    job.key = utt;
    job.samples.Resize(wave.Data().NumCols(), kUndefined);
    job.samples.CopyFromVec(SubVector<BaseFloat>(wave.Data(), this_chan));
    job.samp_freq = wave.SampFreq();
    job.duration = wave.Duration();
    job.warp = warp;
    if (batch.size() >= batch_size) flush();
    if (num_utts % 10 == 0)
      NNET3_LOG << "Processed " << num_utts << " utterances";
  }
  flush();
  NNET3_LOG << "Done " << num_success << " out of " << num_utts
            << " utterances.";
  return num_success != 0 ? 0 : 1;
}

}  // namespace nnet3
