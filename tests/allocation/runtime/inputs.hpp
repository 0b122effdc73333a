// Journal inputs for the allocator's fold (allocation::runtime::State), as
// the tests of the fold build them: a config document and one watch event.
#pragma once

#include <memory>
#include <string>

#include "allocation/runtime/input.hpp"
#include "model/parse.hpp"

namespace ta_inputs {

// The target allocator's config `text`, read as ta.yaml in namespace ops.
inline allocation::runtime::Input config_input(const std::string& text, bool kubernetes = true) {
  allocation::runtime::Input in;
  in.type = allocation::runtime::InputType::config;
  in.config = {text, "ta.yaml", false, "ops"};
  in.config.kubernetes = kubernetes;
  return in;
}

// One event of watch `id`: the object as JSON text.
inline allocation::runtime::Input watch_input(const std::string& id, allocation::discovery::Change change,
                                              const std::string& json) {
  allocation::runtime::Input in;
  in.type = allocation::runtime::InputType::watch;
  in.watch = {id, change, std::make_shared<const model::Value>(model::parse_json(json))};
  return in;
}

}  // namespace ta_inputs
