// The convergence check of OperatorFixture: render_all over the cluster's
// current contents versus what the cluster holds (actors/core/convergence.hpp).
#include "actors/core/convergence.hpp"
#include "operator_fixture.hpp"

namespace e2e {

namespace {

std::vector<model::Value> inputs(OperatorFixture& f) {
  std::vector<model::Value> out;
  for (const auto& kind : actors::core::input_kinds())
    for (auto& obj : f.list(kind)) out.push_back(std::move(obj));
  return out;
}

}  // namespace

std::vector<model::Value> OperatorFixture::expected() {
  model::Inventory inv;
  for (auto& obj : inputs(*this)) inv.add(std::move(obj));
  return model::render_all(inv, model::RenderOptions{}).objects;
}

std::vector<model::Value> OperatorFixture::owned() {
  std::vector<model::Value> out;
  for (const auto& kind : actors::core::owned_kinds())
    for (auto& obj : list(kind))
      if (actors::core::is_managed(obj)) out.push_back(std::move(obj));
  return out;
}

std::vector<std::string> OperatorFixture::divergence() {
  return actors::core::divergence(inputs(*this), owned());
}

}  // namespace e2e
