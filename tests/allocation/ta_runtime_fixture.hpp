// The target allocator run in-process (actors::ta::TargetAllocator) on a
// free port: what the binary runs, without spawning it.
#pragma once

#include <httplib.h>

#include <functional>
#include <string>

#include "actors/allocation/runtime.hpp"

namespace ta_test {

inline actors::ta::RuntimeOptions runtime_options(const std::string& config_text) {
  actors::ta::RuntimeOptions o;
  o.config_text = config_text;
  o.config_path = "ta.yaml";
  o.server.host = "127.0.0.1";
  o.server.port = 0;
  o.config_reload_interval = std::chrono::milliseconds(0);  // ta.yaml is not a file; tests that reload set one
  return o;
}

struct Runtime {
  actors::ta::TargetAllocator ta;
  explicit Runtime(const std::string& config_text, const std::function<void(actors::ta::RuntimeOptions&)>& tweak = {})
      : ta(tweaked(config_text, tweak)) {
    ta.start();
  }
  static actors::ta::RuntimeOptions tweaked(const std::string& text,
                                            const std::function<void(actors::ta::RuntimeOptions&)>& tweak) {
    auto o = runtime_options(text);
    if (tweak) tweak(o);
    return o;
  }
  int port() const { return ta.port(); }
};

}  // namespace ta_test
