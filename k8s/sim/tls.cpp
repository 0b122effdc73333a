#include "k8s/sim/tls.hpp"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>

namespace k8s::sim {

namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("tls: ") + what + " failed");
}

bool is_ip(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.c_str());
  check(ext != nullptr, "certificate extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `key` named `cn`, without extensions or signature yet.
CertPtr new_cert(EVP_PKEY* key, const std::string& cn) {
  CertPtr cert(X509_new());
  check(cert && X509_set_version(cert.get(), 2) == 1, "X509_new");
  BnPtr serial(BN_new());
  // Random 127-bit serials, as CAs are required to use unpredictable ones.
  check(serial && BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1, "serial");
  check(BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) != nullptr, "serial");
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  check(X509_set_pubkey(cert.get(), key) == 1, "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("simcluster"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  return cert;
}

std::string san_list(const std::vector<std::string>& hosts) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto& h : hosts) {
    if (h.empty() || std::find(seen.begin(), seen.end(), h) != seen.end()) continue;
    seen.push_back(h);
    if (!out.empty()) out += ",";
    out += (is_ip(h) ? "IP:" : "DNS:") + h;
  }
  return out;
}

std::string pem_of(const std::function<int(BIO*)>& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  check(bio && write(bio.get()) == 1, "PEM encoding");
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

std::string cert_pem(X509* cert) {
  return pem_of([cert](BIO* b) { return PEM_write_bio_X509(b, cert); });
}

}  // namespace

TlsMaterial generate_tls(const std::vector<std::string>& hosts) {
  KeyPtr ca_key(EVP_EC_gen("P-256"));
  KeyPtr key(EVP_EC_gen("P-256"));
  check(ca_key && key, "EC key generation");
  CertPtr ca = new_cert(ca_key.get(), "simcluster-ca");
  check(X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) == 1, "issuer");
  add_ext(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_ext(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  add_ext(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(ca.get(), ca_key.get(), EVP_sha256()) > 0, "signing the CA");

  CertPtr cert = new_cert(key.get(), "simcluster");
  check(X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get())) == 1, "issuer");
  add_ext(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_ext(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_ext(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  add_ext(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  std::string sans = san_list(hosts);
  if (!sans.empty()) add_ext(cert.get(), ca.get(), NID_subject_alt_name, sans);
  check(X509_sign(cert.get(), ca_key.get(), EVP_sha256()) > 0, "signing the server certificate");

  TlsMaterial out;
  out.ca_cert_pem = cert_pem(ca.get());
  out.cert_pem = cert_pem(cert.get());
  EVP_PKEY* k = key.get();
  out.key_pem = pem_of([k](BIO* b) { return PEM_write_bio_PrivateKey(b, k, nullptr, nullptr, 0, nullptr, nullptr); });
  return out;
}

std::string random_token() {
  unsigned char bytes[16];
  check(RAND_bytes(bytes, sizeof bytes) == 1, "RAND_bytes");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

void write_tls_files(const TlsMaterial& tls, const std::string& dir) {
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text, bool secret) {
    std::string path = dir + "/" + name;
    std::ofstream out(path, std::ios::trunc);
    if (secret) ::chmod(path.c_str(), 0600);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
  };
  write("ca.crt", tls.ca_cert_pem, false);
  write("server.crt", tls.cert_pem, false);
  write("server.key", tls.key_pem, true);
}

}  // namespace k8s::sim
