#include "policy/seq2seq.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/strings.h"

namespace graphopt {
namespace {

// Forget-gate biases to 1 (PyTorch gate order i, f, g, o), the other gates as initialized.
void InitForgetBias(torch::nn::LSTM& lstm, int64_t hidden) {
  torch::NoGradGuard no_grad;
  for (auto& item : lstm->named_parameters()) {
    const std::string& name = item.key();
    if (name.rfind("bias_ih", 0) == 0) item.value().narrow(0, hidden, hidden).fill_(1.0);
    if (name.rfind("bias_hh", 0) == 0) item.value().narrow(0, hidden, hidden).fill_(0.0);
  }
}

}  // namespace

void WithTorchSeed(uint64_t seed, const std::function<void()>& build) {
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  at::Tensor state;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    state = gen.get_state();
    gen.set_current_seed(seed);
  }
  build();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

Status Seq2SeqConfig::Validate() const {
  auto bad = [](const std::string& m) { return InvalidArgument("seq2seq placer: " + m); };
  if (input_size < 1) return bad("input_size must be >= 1");
  if (num_devices < 1) return bad("num_devices must be >= 1");
  if (hidden < 2) return bad("hidden must be >= 2");
  if (bidirectional && hidden % 2 != 0) return bad("hidden must be even for a bidirectional encoder");
  if (attention != "dot" && attention != "additive") {
    return bad("attention must be \"dot\" or \"additive\", got \"" + attention + "\"");
  }
  if (attention_size < 1) return bad("attention_size must be >= 1");
  if (!(logit_temperature > 0)) return bad("logit_temperature must be > 0");
  if (!(tanh_constant >= 0)) return bad("tanh_constant must be >= 0");
  return Status::Ok();
}

std::string Seq2SeqConfig::ToString() const {
  return StrFormat(
      "input_size=%d,num_devices=%d,hidden=%d,bidirectional=%d,attention=%s,attention_size=%d,"
      "logit_temperature=%g,tanh_constant=%g,seed=%llu",
      input_size, num_devices, hidden, bidirectional ? 1 : 0, attention.c_str(), attention_size, logit_temperature,
      tanh_constant, static_cast<unsigned long long>(seed));
}

torch::Tensor DeviceMaskTensor(const std::vector<uint8_t>& allowed) {
  torch::Tensor t = torch::empty({static_cast<int64_t>(allowed.size())}, torch::kBool);
  bool* p = t.data_ptr<bool>();
  for (size_t i = 0; i < allowed.size(); ++i) p[i] = allowed[i] != 0;
  return t;
}

Seq2SeqPlacerImpl::Seq2SeqPlacerImpl(Seq2SeqConfig config) : config_(std::move(config)) {
  const Status valid = config_.Validate();
  GO_CHECK_MSG(valid.ok(), valid.message());
  const int64_t h = config_.hidden;
  const int64_t a = config_.attention_size;
  WithTorchSeed(config_.seed, [&] {
    namespace nn = torch::nn;
    const int64_t encoder_hidden = config_.bidirectional ? h / 2 : h;
    encoder_ = register_module("encoder", nn::LSTM(nn::LSTMOptions(config_.input_size, encoder_hidden)
                                                       .batch_first(true)
                                                       .bidirectional(config_.bidirectional)));
    InitForgetBias(encoder_, encoder_hidden);
    decoder_ = register_module("decoder", nn::LSTM(nn::LSTMOptions(h, h).batch_first(true)));
    InitForgetBias(decoder_, h);
    device_embedding_ = register_module("device_embedding", nn::Embedding(config_.num_devices, h));
    go_embedding_ = register_parameter("go_embedding", torch::empty({h}).uniform_(-0.1, 0.1));
    key_ = register_module("key", nn::Linear(nn::LinearOptions(h, a).bias(false)));
    query_ = register_module("query", nn::Linear(nn::LinearOptions(h, a).bias(false)));
    if (config_.attention == "additive")
      score_ = register_module("score", nn::Linear(nn::LinearOptions(a, 1).bias(false)));
    out_ = register_module("out", nn::Linear(2 * h, config_.num_devices));
    {
      torch::NoGradGuard no_grad;
      device_embedding_->weight.mul_(0.1);
    }
  });
}

Seq2SeqEncoding Seq2SeqPlacerImpl::Encode(const torch::Tensor& inputs) {
  GO_CHECK(inputs.dim() == 3 && inputs.size(2) == config_.input_size && inputs.size(1) >= 1);
  auto [states, hc] = encoder_->forward(inputs);
  const torch::Tensor& h_n = std::get<0>(hc);  // [directions, E, H']
  const torch::Tensor& c_n = std::get<1>(hc);
  Seq2SeqEncoding e;
  e.states = states;
  e.keys = key_(states);
  if (config_.bidirectional) {
    e.h0 = torch::cat({h_n[0], h_n[1]}, 1);
    e.c0 = torch::cat({c_n[0], c_n[1]}, 1);
  } else {
    e.h0 = h_n[0];
    e.c0 = c_n[0];
  }
  return e;
}

Seq2SeqEncoding Seq2SeqPlacerImpl::RepeatEncoding(const Seq2SeqEncoding& encoding, int64_t k) {
  if (k == 1) return encoding;
  Seq2SeqEncoding e;
  e.states = encoding.states.repeat_interleave(k, 0);
  e.keys = encoding.keys.repeat_interleave(k, 0);
  e.h0 = encoding.h0.repeat_interleave(k, 0);
  e.c0 = encoding.c0.repeat_interleave(k, 0);
  return e;
}

torch::Tensor Seq2SeqPlacerImpl::Logits(const Seq2SeqEncoding& encoding, const torch::Tensor& h,
                                        const torch::Tensor& mask) {
  const torch::Tensor q = query_(h);  // [B, S, A]
  torch::Tensor scores;
  if (config_.attention == "dot") {
    scores = torch::matmul(q, encoding.keys.transpose(1, 2)) / std::sqrt(static_cast<double>(config_.attention_size));
  } else {
    // [B, S, 1, A] + [E, 1, T, A] -> [B, S, T, A] -> [B, S, T]
    scores = score_(torch::tanh(q.unsqueeze(2) + encoding.keys.unsqueeze(1))).squeeze(-1);
  }
  const torch::Tensor attention = torch::softmax(scores, -1);               // [B, S, T]
  const torch::Tensor context = torch::matmul(attention, encoding.states);  // [B, S, H]
  torch::Tensor logits = out_(torch::cat({h, context}, -1));
  if (config_.logit_temperature != 1.0) logits = logits / config_.logit_temperature;
  if (config_.tanh_constant > 0) logits = config_.tanh_constant * torch::tanh(logits);
  return logits.masked_fill(mask.logical_not(), kSeq2SeqMaskedLogit);
}

Seq2SeqSample Seq2SeqPlacerImpl::Sample(const Seq2SeqEncoding& encoding, int64_t num_samples,
                                        const torch::Tensor& device_mask, Rng& rng, bool greedy, double logit_noise) {
  torch::NoGradGuard no_grad;
  const int64_t b = num_samples;
  const int64_t e = encoding.batch();
  const int64_t t_steps = encoding.steps();
  const int64_t d = config_.num_devices;
  const int64_t h_size = config_.hidden;
  GO_CHECK(b >= 1 && (e == 1 || e == b));
  GO_CHECK(device_mask.dim() == 1 || (device_mask.dim() == 2 && device_mask.size(0) == t_steps));
  torch::Tensor h = encoding.h0.expand({b, h_size}).contiguous();
  torch::Tensor c = encoding.c0.expand({b, h_size}).contiguous();
  torch::Tensor x = go_embedding_.unsqueeze(0).expand({b, h_size}).contiguous();
  auto params = decoder_->named_parameters();
  const torch::Tensor w_ih = params["weight_ih_l0"], w_hh = params["weight_hh_l0"];
  const torch::Tensor b_ih = params["bias_ih_l0"], b_hh = params["bias_hh_l0"];

  Seq2SeqSample out;
  out.devices = torch::zeros({b, t_steps}, torch::kLong);
  std::vector<double> log_prob(static_cast<size_t>(b), 0.0);
  int64_t* devices = out.devices.data_ptr<int64_t>();
  float* noise = nullptr;
  if (logit_noise > 0) {
    out.noise = torch::zeros({b, t_steps, d}, torch::kFloat);
    noise = out.noise.data_ptr<float>();
  }
  std::vector<int64_t> chosen(static_cast<size_t>(b));
  std::vector<double> p(static_cast<size_t>(d));
  for (int64_t t = 0; t < t_steps; ++t) {
    std::tie(h, c) = at::lstm_cell(x, {h, c}, w_ih, w_hh, b_ih, b_hh);
    const torch::Tensor mask = device_mask.dim() == 1 ? device_mask : device_mask[t];
    torch::Tensor logits = Logits(encoding, h.unsqueeze(1), mask).squeeze(1).contiguous();  // [B, D]
    if (noise != nullptr) {
      float* l = logits.data_ptr<float>();
      double sum_sq = 0;
      int64_t count = 0;
      for (int64_t i = 0; i < b * d; ++i) {
        if (l[i] > kSeq2SeqMaskedLogit) {
          sum_sq += static_cast<double>(l[i]) * l[i];
          ++count;
        }
      }
      const double stddev = logit_noise * std::sqrt(sum_sq / static_cast<double>(std::max<int64_t>(1, count)));
      for (int64_t i = 0; i < b; ++i) {
        for (int64_t j = 0; j < d; ++j) {
          if (l[i * d + j] <= kSeq2SeqMaskedLogit) continue;
          const float n = static_cast<float>(stddev * rng.Normal());
          noise[(i * t_steps + t) * d + j] = n;
          l[i * d + j] += n;
        }
      }
    }
    const torch::Tensor lp = torch::log_softmax(logits, -1).contiguous();
    const float* row = lp.data_ptr<float>();
    for (int64_t i = 0; i < b; ++i) {
      const float* r = row + i * d;
      int64_t pick = 0;
      if (greedy) {
        for (int64_t j = 1; j < d; ++j) {
          if (r[j] > r[pick]) pick = j;
        }
      } else {
        double total = 0;
        for (int64_t j = 0; j < d; ++j) total += p[static_cast<size_t>(j)] = std::exp(static_cast<double>(r[j]));
        const double u = rng.UniformDouble() * total;
        double cum = 0;
        for (int64_t j = 0; j < d; ++j) {
          if (p[static_cast<size_t>(j)] <= 0) continue;
          cum += p[static_cast<size_t>(j)];
          pick = j;
          if (u < cum) break;
        }
      }
      chosen[static_cast<size_t>(i)] = pick;
      devices[i * t_steps + t] = pick;
      log_prob[static_cast<size_t>(i)] += r[pick];
    }
    x = device_embedding_->weight.index_select(0, torch::tensor(chosen, torch::kLong));
  }
  out.log_prob = torch::tensor(std::vector<float>(log_prob.begin(), log_prob.end()), torch::kFloat);
  return out;
}

Seq2SeqEvaluation Seq2SeqPlacerImpl::Evaluate(const Seq2SeqEncoding& encoding, const torch::Tensor& devices,
                                              const torch::Tensor& device_mask, const torch::Tensor& noise) {
  GO_CHECK(devices.dim() == 2 && devices.size(1) == encoding.steps());
  const int64_t b = devices.size(0);
  const int64_t e = encoding.batch();
  const int64_t t_steps = encoding.steps();
  const int64_t h_size = config_.hidden;
  GO_CHECK(e == 1 || e == b);
  GO_CHECK(device_mask.dim() == 1 || (device_mask.dim() == 2 && device_mask.size(0) == t_steps));
  // Decoder inputs: go, then the embedding of the previous step's device.
  torch::Tensor x = go_embedding_.view({1, 1, h_size}).expand({b, 1, h_size});
  if (t_steps > 1) {
    x = torch::cat({x, device_embedding_(devices.narrow(1, 0, t_steps - 1))}, 1);
  }
  const torch::Tensor h0 = encoding.h0.expand({b, h_size}).unsqueeze(0).contiguous();
  const torch::Tensor c0 = encoding.c0.expand({b, h_size}).unsqueeze(0).contiguous();
  const torch::Tensor h = std::get<0>(decoder_->forward(x, std::make_tuple(h0, c0)));  // [B, T, H]
  const torch::Tensor mask = device_mask.dim() == 1 ? device_mask : device_mask.unsqueeze(0);
  Seq2SeqEvaluation out;
  out.logits = Logits(encoding, h, mask);
  if (noise.defined()) out.logits = out.logits + noise;
  const torch::Tensor lp = torch::log_softmax(out.logits, -1);
  out.log_prob = lp.gather(2, devices.unsqueeze(2)).squeeze(2).sum(1);
  out.entropy = -(lp.exp() * lp).sum(2).sum(1);
  return out;
}

}  // namespace graphopt
