// Fuzzes kubeconfig reading (k8s/client/config.hpp from_kubeconfig_text,
// the text half of from_kubeconfig): current-context, contexts, clusters,
// users, base64 *-data fields, relative paths, unsupported auth.
// Input: the kubeconfig text; read with its own current-context and with
// an explicit context named "fuzz".
// Contract checked: a kubeconfig is accepted or refused with ConfigError
// naming the file and field; nothing else escapes (yaml-cpp's exceptions
// included), and an accepted config always has a server.
#include <cstdint>
#include <string>

#include "k8s/client/config.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

void read(const std::string& text, const std::string& context) {
  try {
    k8s::ClusterConfig c = k8s::from_kubeconfig_text(text, "/fuzz/kubeconfig", context);
    if (c.server.empty()) fuzz::fuzz_fail("accepted a kubeconfig without a server");
  } catch (const k8s::ConfigError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(fuzz::as_text(data, size));
  read(text, "");
  read(text, "fuzz");
  return 0;
}
