#include "common/metrics/metric_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace cuzk::metrics {

namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*; label names: [a-zA-Z_][a-zA-Z0-9_]*, "__" prefix reserved.
void check_metric_name(std::string_view name) {
    const bool ok = !name.empty() && (is_name_start(name[0]) || name[0] == ':') &&
                    std::all_of(name.begin(), name.end(), [](char c) { return is_name_start(c) || is_digit(c) || c == ':'; });
    if (!ok) throw std::invalid_argument(fmt::format("metric name '{}' is not [a-zA-Z_:][a-zA-Z0-9_:]*", name));
}

void check_label_names(std::string_view metric, const std::vector<std::string>& names) {
    std::set<std::string_view> seen;
    for (const auto& label : names) {
        const bool ok = !label.empty() && is_name_start(label[0]) && !label.starts_with("__") &&
                        std::all_of(label.begin(), label.end(), [](char c) { return is_name_start(c) || is_digit(c); });
        if (!ok)
            throw std::invalid_argument(
                fmt::format("metric {}: label name '{}' is not [a-zA-Z_][a-zA-Z0-9_]* (without a leading __)", metric, label));
        if (!seen.insert(label).second)
            throw std::invalid_argument(fmt::format("metric {}: label name '{}' given twice", metric, label));
    }
}

void append_escaped_help(std::string& out, std::string_view text) {
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
}

void append_escaped_label_value(std::string& out, std::string_view text) {
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
}

std::string describe(const std::vector<std::string>& label_names) {
    return label_names.empty() ? "no labels" : fmt::format("labels ({})", fmt::join(label_names, ", "));
}

}  // namespace

std::string format_value(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", value);
}

metric_family::metric_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names)
    : mutex_(mutex), name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void metric_family::check_labels(const label_values& labels) const {
    if (labels.size() != label_names_.size())
        throw std::invalid_argument(fmt::format("metric {}: {} label values given for {}", name_, labels.size(),
                                                describe(label_names_)));
}

void metric_family::append_sample(std::string& out, std::string_view suffix, const label_values& labels, double value,
                                  std::string_view le) const {
    out += name_;
    out += suffix;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        out += i == 0 ? '{' : ',';
        out += label_names_[i];
        out += "=\"";
        append_escaped_label_value(out, labels[i]);
        out += '"';
    }
    if (!le.empty()) {
        out += labels.empty() ? "{le=\"" : ",le=\"";
        out += le;
        out += '"';
    }
    if (!labels.empty() || !le.empty()) out += '}';
    out += ' ';
    out += format_value(value);
    out += '\n';
}

counter_family::counter_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names)
    : metric_family(mutex, std::move(name), std::move(help), std::move(label_names)) {
    if (metric_family::label_names().empty()) children_[{}] = 0;
}

void counter_family::add(const label_values& labels, double amount) {
    if (!(amount >= 0))
        throw std::invalid_argument(fmt::format("counter {}: cannot add {} (a counter only goes up)", name(), amount));
    check_labels(labels);
    std::lock_guard lock(mutex_);
    children_[labels] += amount;
}

double counter_family::value(const label_values& labels) const {
    check_labels(labels);
    std::lock_guard lock(mutex_);
    const auto it = children_.find(labels);
    return it == children_.end() ? 0 : it->second;
}

void counter_family::render_samples(std::string& out) const {
    for (const auto& [labels, value] : children_) append_sample(out, "", labels, value);
}

gauge_family::gauge_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names)
    : metric_family(mutex, std::move(name), std::move(help), std::move(label_names)) {
    if (metric_family::label_names().empty()) children_[{}] = 0;
}

void gauge_family::set(const label_values& labels, double value) {
    check_labels(labels);
    std::lock_guard lock(mutex_);
    children_[labels] = value;
}

void gauge_family::add(const label_values& labels, double delta) {
    check_labels(labels);
    std::lock_guard lock(mutex_);
    children_[labels] += delta;
}

void gauge_family::reset() {
    std::lock_guard lock(mutex_);
    children_.clear();
}

void gauge_family::replace(const std::vector<std::pair<label_values, double>>& children) {
    for (const auto& [labels, value] : children) check_labels(labels);
    std::map<label_values, double> fresh;
    for (const auto& [labels, value] : children) fresh[labels] = value;
    std::lock_guard lock(mutex_);
    children_.swap(fresh);
}

double gauge_family::value(const label_values& labels) const {
    check_labels(labels);
    std::lock_guard lock(mutex_);
    const auto it = children_.find(labels);
    return it == children_.end() ? 0 : it->second;
}

void gauge_family::render_samples(std::string& out) const {
    for (const auto& [labels, value] : children_) append_sample(out, "", labels, value);
}

histogram_family::histogram_family(std::mutex& mutex, std::string name, std::string help,
                                   std::vector<std::string> label_names, std::vector<double> bounds)
    : metric_family(mutex, std::move(name), std::move(help), std::move(label_names)), bounds_(std::move(bounds)) {
    if (metric_family::label_names().empty()) children_[{}].in_bucket.assign(bounds_.size() + 1, 0);
}

void histogram_family::observe(const label_values& labels, double value) {
    if (std::isnan(value)) throw std::invalid_argument(fmt::format("histogram {}: cannot observe NaN", name()));
    check_labels(labels);
    // The first bound >= value is the bucket it is counted in (le is inclusive); past the last, +Inf.
    const auto bucket = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
    std::lock_guard lock(mutex_);
    auto& c = children_[labels];
    if (c.in_bucket.empty()) c.in_bucket.assign(bounds_.size() + 1, 0);
    ++c.in_bucket[bucket];
    ++c.count;
    c.sum += value;
}

std::uint64_t histogram_family::count(const label_values& labels) const {
    check_labels(labels);
    std::lock_guard lock(mutex_);
    const auto it = children_.find(labels);
    return it == children_.end() ? 0 : it->second.count;
}

double histogram_family::sum(const label_values& labels) const {
    check_labels(labels);
    std::lock_guard lock(mutex_);
    const auto it = children_.find(labels);
    return it == children_.end() ? 0 : it->second.sum;
}

void histogram_family::render_samples(std::string& out) const {
    for (const auto& [labels, c] : children_) {
        std::uint64_t cumulative = 0;
        for (std::size_t b = 0; b <= bounds_.size(); ++b) {
            cumulative += c.in_bucket[b];
            append_sample(out, "_bucket", labels, static_cast<double>(cumulative),
                          b < bounds_.size() ? format_value(bounds_[b]) : "+Inf");
        }
        append_sample(out, "_sum", labels, c.sum);
        append_sample(out, "_count", labels, static_cast<double>(c.count));
    }
}

metric_family* registry::find_registered(std::string_view name, std::string_view type,
                                         const std::vector<std::string>& label_names,
                                         const std::vector<double>* bounds) const {
    for (const auto& f : families_) {
        if (f->name() != name) continue;
        const auto* histogram = dynamic_cast<const histogram_family*>(f.get());
        const bool same = f->type() == type && f->label_names() == label_names &&
                          (!bounds || (histogram && histogram->bounds() == *bounds));
        if (!same)
            throw std::invalid_argument(fmt::format(
                "metric {} is already registered as a {} with {}{}; asked for a {} with {}{}", name, f->type(),
                describe(f->label_names()), histogram ? fmt::format(" and buckets ({})", fmt::join(histogram->bounds(), ", ")) : "",
                type, describe(label_names), bounds ? fmt::format(" and buckets ({})", fmt::join(*bounds, ", ")) : ""));
        return f.get();
    }
    return nullptr;
}

counter_family& registry::counter(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
    check_metric_name(name);
    check_label_names(name, label_names);
    std::lock_guard lock(mutex_);
    if (auto* f = find_registered(name, "counter", label_names, nullptr)) return static_cast<counter_family&>(*f);
    std::unique_ptr<counter_family> family(new counter_family(mutex_, std::string(name), std::string(help), std::move(label_names)));
    auto& registered = *family;
    families_.push_back(std::move(family));
    return registered;
}

gauge_family& registry::gauge(std::string_view name, std::string_view help, std::vector<std::string> label_names) {
    check_metric_name(name);
    check_label_names(name, label_names);
    std::lock_guard lock(mutex_);
    if (auto* f = find_registered(name, "gauge", label_names, nullptr)) return static_cast<gauge_family&>(*f);
    std::unique_ptr<gauge_family> family(new gauge_family(mutex_, std::string(name), std::string(help), std::move(label_names)));
    auto& registered = *family;
    families_.push_back(std::move(family));
    return registered;
}

histogram_family& registry::histogram(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                                      std::vector<double> bounds) {
    check_metric_name(name);
    check_label_names(name, label_names);
    if (std::find(label_names.begin(), label_names.end(), "le") != label_names.end())
        throw std::invalid_argument(fmt::format("histogram {}: label name 'le' is reserved for the bucket bound", name));
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        if (!std::isfinite(bounds[i]))
            throw std::invalid_argument(fmt::format("histogram {}: bucket bound {} is not finite (+Inf is implied)", name,
                                                    format_value(bounds[i])));
        if (i > 0 && !(bounds[i] > bounds[i - 1]))
            throw std::invalid_argument(fmt::format("histogram {}: bucket bounds must increase ({} after {})", name,
                                                    format_value(bounds[i]), format_value(bounds[i - 1])));
    }
    std::lock_guard lock(mutex_);
    if (auto* f = find_registered(name, "histogram", label_names, &bounds)) return static_cast<histogram_family&>(*f);
    std::unique_ptr<histogram_family> family(
        new histogram_family(mutex_, std::string(name), std::string(help), std::move(label_names), std::move(bounds)));
    auto& registered = *family;
    families_.push_back(std::move(family));
    return registered;
}

std::string registry::render() const {
    std::string out;
    std::lock_guard lock(mutex_);
    for (const auto& f : families_) {
        out += "# HELP ";
        out += f->name();
        out += ' ';
        append_escaped_help(out, f->help());
        out += "\n# TYPE ";
        out += f->name();
        out += ' ';
        out += f->type();
        out += '\n';
        f->render_samples(out);
    }
    return out;
}

}  // namespace cuzk::metrics
