// Prometheus metrics kept in the process and rendered as the text exposition format 0.0.4, for the
// /metrics endpoint and the API's GetMetrics. A family has a full name (units and _total by Prometheus
// convention: cuzk_proofs_completed_total, cuzk_proof_duration_seconds), help text and label names; it holds
// one child per distinct tuple of label values. Every family of one registry shares the registry's mutex, so
// render() sees each update whole; references to families stay valid for the registry's life.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuzk::metrics {

// One value per label name, in the order the family declared its label names.
using label_values = std::vector<std::string>;

// A sample value as the text format writes it: "+Inf", "-Inf", "NaN", else the shortest decimal that reads
// back as the same double (integers without exponent up to 1e16).
std::string format_value(double value);

class metric_family {
public:
    virtual ~metric_family() = default;
    metric_family(const metric_family&) = delete;
    metric_family& operator=(const metric_family&) = delete;

    const std::string& name() const { return name_; }
    const std::string& help() const { return help_; }
    const std::vector<std::string>& label_names() const { return label_names_; }
    virtual std::string_view type() const = 0;

protected:
    metric_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names);
    // Throws std::invalid_argument naming the family when |labels| has not one value per label name.
    void check_labels(const label_values& labels) const;
    // Appends one sample line: name, |suffix|, {labels, then le="|le|" when given}, value.
    void append_sample(std::string& out, std::string_view suffix, const label_values& labels, double value,
                       std::string_view le = {}) const;

    std::mutex& mutex_;

private:
    friend class registry;
    // Appends the family's sample lines; called with |mutex_| held.
    virtual void render_samples(std::string& out) const = 0;

    std::string name_;
    std::string help_;
    std::vector<std::string> label_names_;
};

// A value that only goes up (events, seconds or bytes accumulated since the process started).
class counter_family final : public metric_family {
public:
    // Throws std::invalid_argument when |amount| is negative or NaN: a counter never goes down.
    void add(const label_values& labels, double amount = 1);
    // 0 for a child not yet added to.
    double value(const label_values& labels) const;
    std::string_view type() const override { return "counter"; }

private:
    friend class registry;
    counter_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names);
    void render_samples(std::string& out) const override;

    std::map<label_values, double> children_;
};

// A value that goes up and down (slots by state, bytes in use). A family filled from a snapshot is replaced
// whole, so a label set that left the snapshot is no longer reported.
class gauge_family final : public metric_family {
public:
    void set(const label_values& labels, double value);
    void add(const label_values& labels, double delta);
    // Drops every child (a family without labels too: it reports nothing until set again).
    void reset();
    // reset() and set() of each child as one update: a concurrent render sees the old children or the new.
    void replace(const std::vector<std::pair<label_values, double>>& children);
    // 0 for a child not set.
    double value(const label_values& labels) const;
    std::string_view type() const override { return "gauge"; }

private:
    friend class registry;
    gauge_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names);
    void render_samples(std::string& out) const override;

    std::map<label_values, double> children_;
};

// Observations counted into buckets by upper bound (le), with their sum and count. The +Inf bucket is implied.
class histogram_family final : public metric_family {
public:
    // Throws std::invalid_argument for NaN.
    void observe(const label_values& labels, double value);
    std::uint64_t count(const label_values& labels) const;
    double sum(const label_values& labels) const;
    const std::vector<double>& bounds() const { return bounds_; }
    std::string_view type() const override { return "histogram"; }

private:
    friend class registry;
    histogram_family(std::mutex& mutex, std::string name, std::string help, std::vector<std::string> label_names,
                     std::vector<double> bounds);
    void render_samples(std::string& out) const override;

    struct child {
        std::vector<std::uint64_t> in_bucket;  // per bound, not cumulative; the last entry is the +Inf bucket
        std::uint64_t count = 0;
        double sum = 0;
    };
    std::vector<double> bounds_;
    std::map<label_values, child> children_;
};

class registry {
public:
    registry() = default;
    registry(const registry&) = delete;
    registry& operator=(const registry&) = delete;

    // Register a family, or return the one already registered under |name| with the same definition. Throws
    // std::invalid_argument for a name or label name Prometheus does not accept, and when |name| is
    // registered with another type, other label names or (histograms) other bounds.
    counter_family& counter(std::string_view name, std::string_view help, std::vector<std::string> label_names = {});
    gauge_family& gauge(std::string_view name, std::string_view help, std::vector<std::string> label_names = {});
    // |bounds|: finite, strictly increasing upper bounds; +Inf is added.
    histogram_family& histogram(std::string_view name, std::string_view help, std::vector<std::string> label_names,
                                std::vector<double> bounds);

    // Every family in registration order: # HELP, # TYPE, then its samples (children by label values).
    std::string render() const;

private:
    // The family registered under |name|, nullptr when none; throws std::invalid_argument when it is not of
    // |type| with |label_names| (and, for a histogram, |bounds|). Called with |mutex_| held.
    metric_family* find_registered(std::string_view name, std::string_view type,
                                   const std::vector<std::string>& label_names, const std::vector<double>* bounds) const;

    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<metric_family>> families_;
};

}  // namespace cuzk::metrics
