// Test certificates for mutual TLS, made with the openssl CLI in a fresh
// temporary directory (removed on destruction): a CA (ca.crt), a server
// certificate for 127.0.0.1 (server.crt/.key) and a client certificate
// (client.crt/.key) signed by it, plus a second, unrelated CA with its own
// client certificate (other-ca.crt, other-client.crt/.key) for "wrong CA"
// cases. Throws std::runtime_error when openssl fails.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace testutil {

struct MutualTls {
  std::filesystem::path dir;

  MutualTls() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ao-mtls-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    std::ofstream(dir / "server.ext") << "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
    std::ofstream(dir / "client.ext") << "extendedKeyUsage=clientAuth\n";
    make_ca("ca");
    make_ca("other-ca");
    sign("server", "ca", "server.ext");
    sign("client", "ca", "client.ext");
    sign("other-client", "other-ca", "client.ext");
  }
  ~MutualTls() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  MutualTls(const MutualTls&) = delete;
  MutualTls& operator=(const MutualTls&) = delete;

  std::string path(const char* name) const { return (dir / name).string(); }

 private:
  static constexpr const char* kKey = " -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";

  void make_ca(const std::string& name) {
    run(std::string("openssl req -x509") + kKey + " -keyout " + path(name, ".key") + " -out " + path(name, ".crt") +
        " -days 1 -subj /CN=" + name);
  }
  void sign(const std::string& who, const std::string& ca, const char* ext) {
    run(std::string("openssl req") + kKey + " -keyout " + path(who, ".key") + " -out " + path(who, ".csr") +
        " -subj /CN=" + who);
    run("openssl x509 -req -in " + path(who, ".csr") + " -CA " + path(ca, ".crt") + " -CAkey " + path(ca, ".key") +
        " -CAcreateserial -out " + path(who, ".crt") + " -days 1 -extfile " + (dir / ext).string());
  }
  std::string path(const std::string& name, const char* suffix) const { return (dir / (name + suffix)).string(); }
  static void run(const std::string& command) {
    if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) throw std::runtime_error("failed: " + command);
  }
};

}  // namespace testutil
