// The runner of the CAF unit tests for the actor shells (CAF's own test
// engine, which test_coordinator_fixture's expect() reports to).
#include "caf/test/unit_test_impl.hpp"
