// Connection settings for the client, read from a kubeconfig file or from
// the in-cluster service-account environment.
// Contract: from_kubeconfig() honours current-context (or `context`),
// server, certificate-authority(-data), token, tokenFile,
// client-certificate(-data), client-key(-data), insecure-skip-tls-verify
// and exec credential plugins (exec_credential.hpp); relative file paths
// (and exec commands with a '/') are resolved against the directory of the
// file that defines the entry. from_kubeconfigs() merges several files as
// client-go merges $KUBECONFIG: the first file to define a cluster, user or
// context name wins it, and current-context comes from the first file that
// sets it. The lookup order of the binaries is in kubeconfig_loader.hpp.
// in_cluster() reads KUBERNETES_SERVICE_HOST/PORT and the service-account
// token and CA under `sa_dir`; the token file is re-read when it changes, so
// rotation is picked up. Errors throw ConfigError naming the file and field.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "k8s/client/exec_credential.hpp"

namespace k8s {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ClusterConfig {
  std::string server;            // "https://10.0.0.1:443" or "http://127.0.0.1:8080"
  std::string ca_file, ca_data;  // PEM; data wins over file
  std::string client_cert_file, client_cert_data;
  std::string client_key_file, client_key_data;
  std::string token;       // static bearer token
  std::string token_file;  // re-read on change (service-account rotation)
  bool insecure_skip_tls_verify = false;
  // The user's exec plugin, shared by every transport built from copies of
  // this config so that they share one cached credential.
  std::shared_ptr<ExecCredentialSource> exec;
  std::string source;  // where it came from, for logs: "kubeconfig PATH[:PATH...]" or "in-cluster"
};

ClusterConfig from_kubeconfig(const std::string& path, const std::string& context = "");
// The same from the file's text; `path` names it in errors and anchors its
// relative file paths (nothing is read). For tests and fuzzing.
ClusterConfig from_kubeconfig_text(const std::string& text, const std::string& path, const std::string& context = "");
// Merges (path, text) pairs in order; `context` "" = the merged current-context.
ClusterConfig from_kubeconfigs(const std::vector<std::pair<std::string, std::string>>& files,
                               const std::string& context = "");
inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
ClusterConfig in_cluster(const std::string& sa_dir = kServiceAccountDir);
// The same with the service host and port given rather than read from the
// process environment.
ClusterConfig in_cluster_at(const std::string& host, const std::string& port, const std::string& sa_dir);

}  // namespace k8s
