// Certificates and tokens for simcluster's HTTPS mode, made in memory with
// the OpenSSL 3 C API: a self-signed CA and a server certificate it signs,
// and random bearer tokens.
// Contract: generate_tls() returns PEM text (EC P-256 keys, SHA-256
// signatures, valid from an hour ago for a year); the server certificate
// lists every entry of `hosts` as a subjectAltName (IP when it parses as
// an IPv4/IPv6 address, DNS otherwise) and is usable only for serverAuth.
// Throws std::runtime_error when OpenSSL fails.
#pragma once

#include <string>
#include <vector>

namespace k8s::sim {

struct TlsMaterial {
  std::string ca_cert_pem;
  std::string cert_pem;  // the server certificate, signed by the CA
  std::string key_pem;   // the server's private key (PKCS#8)
};

TlsMaterial generate_tls(const std::vector<std::string>& hosts);

// 32 hex characters from OpenSSL's CSPRNG.
std::string random_token();

// Writes ca.crt, server.crt and server.key (mode 0600) into `dir`, creating
// it when missing. Throws std::runtime_error on I/O failure.
void write_tls_files(const TlsMaterial& tls, const std::string& dir);

}  // namespace k8s::sim
