// Connection settings for the client, read from a kubeconfig file or from
// the in-cluster service-account environment.
// Contract: from_kubeconfig() honours current-context (or `context`),
// server, certificate-authority(-data), token, tokenFile,
// client-certificate(-data), client-key(-data) and insecure-skip-tls-verify;
// relative file paths are resolved against the kubeconfig's directory.
// in_cluster() reads KUBERNETES_SERVICE_HOST/PORT and the service-account
// token and CA under `sa_dir`; the token file is re-read when it changes, so
// rotation is picked up. Errors throw ConfigError naming the file and field.
#pragma once

#include <stdexcept>
#include <string>

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
};

ClusterConfig from_kubeconfig(const std::string& path, const std::string& context = "");
// The same from the file's text; `path` names it in errors and anchors its
// relative file paths (nothing is read). For tests and fuzzing.
ClusterConfig from_kubeconfig_text(const std::string& text, const std::string& path, const std::string& context = "");
ClusterConfig in_cluster(const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace k8s
