// Internal to the ScrapeConfig decoder: the "safe" authentication forms its
// fields use and the service-discovery half (scrape_config_sd.cpp).
// Contract: as model/scrape_config.hpp; problems go to the Reader's list.
#pragma once

#include <optional>
#include <string_view>

#include "model/scrape_config.hpp"

namespace model {

// SafeAuthorization: type and credentials (required); no credentialsFile.
std::optional<Authorization> decode_safe_authorization(const Reader& parent, std::string_view key);
// SafeTLSConfig: references only, no *File fields; cert and key together.
std::optional<TLSConfig> decode_safe_tls(const Reader& parent, std::string_view key);
// staticConfigs, fileSDConfigs, httpSDConfigs, kubernetesSDConfigs, and an
// error for every other non-empty *SDConfigs field.
void decode_scrape_config_sd(const Reader& spec, ScrapeConfig& sc);

}  // namespace model
