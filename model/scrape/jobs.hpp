// The scrape jobs of one MetricsInstance: one per ServiceMonitor endpoint,
// one per PodMonitor podMetricsEndpoint, one per Probe, one per
// IntegrationMonitor, then the user's additionalScrapeConfigs; and, for the
// target allocator, one per ScrapeConfig. With JobContext::prom_operator
// set, monitors render as prometheus-operator's Prometheus renders them:
// with their scrape class (spec.scrapeClass, else the default class; an
// unknown class is an error at spec.scrapeClass) and fallback protocol.
// Contract: pure. Everything that makes a member unusable (a missing
// Secret, file access denied by the agent, an unknown scrape class, a
// class authorization next to the member's own basicAuth, a scrape timeout
// above the interval, an unparsable additionalScrapeConfigs) is recorded
// in the AssetRefs passed in, at a field path of that member; the caller renders
// each member into its own AssetRefs and leaves it out when it has errors.
#pragma once

#include "model/scrape/common.hpp"

namespace model::scrape {

// service_monitor.cpp: an array of jobs, serviceMonitor/<ns>/<name>/<i>.
Value service_monitor_jobs(const JobContext& ctx, const ServiceMonitor& sm, AssetRefs& assets);
// pod_monitor.cpp: an array of jobs, podMonitor/<ns>/<name>/<i>.
Value pod_monitor_jobs(const JobContext& ctx, const PodMonitor& pm, AssetRefs& assets);
// probe.cpp: the job probe/<ns>/<name>.
Value probe_job(const JobContext& ctx, const Probe& probe, AssetRefs& assets);
// scrape_config.cpp: the job scrapeConfig/<ns>/<name> of a ScrapeConfig CR.
Value scrape_config_job(const JobContext& ctx, const ScrapeConfig& sc, AssetRefs& assets);

// integration_monitor.cpp: the job integrationMonitor/<ns>/<name>, polling
// RenderOptions::integrations_sd_url for the agent's integration targets.
Value integration_monitor_job(const JobContext& ctx, const MetricsInstance& mi, const IntegrationMonitor& im,
                              AssetRefs& assets);

// additional.cpp: the MetricsInstance's additionalScrapeConfigs (a
// YAML list of scrape configs in a Secret of its namespace), errors at
// "spec.additionalScrapeConfigs". With more than one shard, jobs without a
// hashmod rule get the sharding pair (not in compat mode).
Value additional_scrape_configs(const JobContext& ctx, const MetricsInstance& mi, AssetRefs& assets);

}  // namespace model::scrape
