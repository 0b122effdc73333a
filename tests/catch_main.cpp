// The single Catch2 main; compiled once and shared by every test binary.
// Tests talk TLS to servers that may hang up mid-handshake (mutual-TLS
// refusals); OpenSSL then writes to a closed socket, and SIGPIPE must not
// end the test run.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <csignal>

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  return Catch::Session().run(argc, argv);
}
