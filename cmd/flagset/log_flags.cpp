#include "log_flags.hpp"

namespace cli {

void add_log_flags(std::vector<Flag>& t, model::LogLevel& level, model::LogFormat& format) {
  // model's messages start with the flag; cli::parse adds it as given.
  t.push_back({{"log-level", "log.level"},
               "LEVEL",
               "info",
               "debug, info, warn or error; all and none as prometheus-operator takes them",
               [&level](const std::string& v) {
                 auto l = model::parse_log_level(v);
                 if (!l) throw std::invalid_argument(model::log_level_error("", v).substr(2));
                 level = *l;
               }});
  t.push_back({{"log-format", "log.format"},
               "FORMAT",
               "logfmt",
               "logfmt or json; logs go to stderr",
               [&format](const std::string& v) {
                 auto fmt = model::parse_log_format(v);
                 if (!fmt) throw std::invalid_argument(model::log_format_error("", v).substr(2));
                 format = *fmt;
               }});
}

}  // namespace cli
