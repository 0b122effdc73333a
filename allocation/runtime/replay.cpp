// Replayer: a journal folded into the allocator state, with move tracking
// for --explain.
#include "allocation/runtime/replay.hpp"

#include <algorithm>
#include <sstream>

#include "allocation/explain.hpp"

namespace allocation::runtime {

namespace {

// A batch can hold a whole initial list; an explanation names its first few.
constexpr std::size_t kBatchShown = 8;

std::pair<std::string, std::string> split_target(const std::string& s) {
  const auto slash = s.rfind('/');
  if (slash == std::string::npos) return {s, ""};
  return {s.substr(0, slash), s.substr(slash + 1)};
}

}  // namespace

Assignment assignment_of(const Allocator& a) {
  Assignment out;
  for (const auto& c : a.collectors()) out[c.name];
  const auto targets = a.targets();
  for (std::uint32_t slot = 0; slot < targets.size(); ++slot) {
    const std::uint32_t c = a.collector_of(slot);
    const std::string name = c == kUnassigned ? std::string() : a.collectors()[c].name;
    out[name].push_back(std::string(targets[slot].job.text()) + "/" + std::string(targets[slot].address));
  }
  for (auto& [name, list] : out) std::sort(list.begin(), list.end());
  return out;
}

std::string format_assignment(const Assignment& assignment) {
  std::ostringstream out;
  for (const auto& [collector, targets] : assignment) {
    out << (collector.empty() ? std::string("unassigned") : "collector " + collector) << ": " << targets.size()
        << " targets\n";
    for (const auto& t : targets) out << "  " << t << "\n";
  }
  return out.str();
}

bool Replayer::feed(std::string_view line, std::size_t line_no) {
  if (!header_) {
    decode_header(line);
    header_ = true;
    return true;
  }
  Input in = decode_input(line, line_no);
  if (in.seq <= last_seq_) throw InputError(line_no, "seq: " + std::to_string(in.seq) + " does not increase");
  if (options_.until && in.seq > *options_.until) return false;
  last_seq_ = in.seq;
  Effects fx = state_.apply(in);
  for (auto& l : fx.logs) {
    l.with("seq", in.seq);
    logs_.push_back(std::move(l));
  }
  if (in.type != InputType::reallocate) {
    batch_.push_back(describe(in));
    return true;
  }
  if (!options_.explain.empty()) track_moves();
  batch_.clear();
  batch_.push_back(describe(in));  // a reallocate alone (a grace period ended) can move targets too
  return true;
}

// After a reallocate: when the explain target changed collector, remember
// the reallocate and the inputs it applied.
void Replayer::track_moves() {
  if (!state_.configured()) return;
  const auto [job, address] = split_target(options_.explain);
  auto ex = explain_target(state_.allocator(), state_.config().strategy, job, address);
  std::optional<std::string> now;
  if (ex) now = ex->collector;
  if (now == explained_on_) return;
  std::ostringstream out;
  out << "last moved " << (explained_on_ ? "from " + (explained_on_->empty() ? "unassigned" : *explained_on_) : "(new)")
      << " to " << (now ? (now->empty() ? "unassigned" : *now) : "(gone)") << " by the reallocate after:\n";
  for (std::size_t i = 0; i < batch_.size() && i < kBatchShown; ++i) out << "  " << batch_[i] << "\n";
  if (batch_.size() > kBatchShown) out << "  ... and " << batch_.size() - kBatchShown << " more inputs\n";
  last_move_ = out.str();
  explained_on_ = now;
}

std::string Replayer::report() const {
  std::ostringstream out;
  out << "replayed to seq " << last_seq_ << "\n";
  if (!state_.configured()) return out.str() + "not configured (no valid config input)\n";
  out << format_assignment(assignment_of(state_.allocator()));
  if (options_.explain.empty()) return out.str();
  const auto [job, address] = split_target(options_.explain);
  auto ex = explain_target(state_.allocator(), state_.config().strategy, job, address);
  if (!ex) return out.str() + "explain: no target " + options_.explain + " at seq " + std::to_string(last_seq_) + "\n";
  out << "explain:\n" << ex->text << last_move_;
  return out.str();
}

}  // namespace allocation::runtime
