// Catch assertions over the e2e fixture, shared by the e2e test files.
#pragma once

#include <catch2/catch.hpp>

#include "operator_fixture.hpp"

namespace e2e {

// The controller is idle and the cluster holds exactly what a render of
// its contents wants; on failure, the differences and the operator's log.
inline void require_converged(OperatorFixture& f) {
  REQUIRE(f.wait_idle());
  auto diff = f.divergence();
  for (const auto& d : diff) UNSCOPED_INFO(d);
  for (const auto& l : f.log()) UNSCOPED_INFO("log: " << l);
  REQUIRE(diff.empty());
}

}  // namespace e2e
