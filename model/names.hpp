// Kubernetes name rules: RFC 1123 subdomains and labels, qualified names
// (label and annotation keys) and label values.
// Contract: each *_problem function returns "" for a valid input, otherwise
// the real API server's explanation text (used in 422 Invalid causes).
#pragma once

#include <string>
#include <string_view>

namespace model {

std::string dns_subdomain_problem(std::string_view s);
std::string dns_label_problem(std::string_view s);
std::string qualified_name_problem(std::string_view s);
std::string label_value_problem(std::string_view s);

}  // namespace model
