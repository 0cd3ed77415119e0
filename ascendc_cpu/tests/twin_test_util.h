// Helpers of the twin's tests: GM arrays, environment variables for one test, findings.
#ifndef ASCENDC_CPU_TESTS_TWIN_TEST_UTIL_H
#define ASCENDC_CPU_TESTS_TWIN_TEST_UTIL_H

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tikicpulib.h"

namespace twin_test {

/// `count` elements of T in GM (GmAlloc'd, zero-filled), freed at scope end.
template <typename T>
class GmArray {
public:
    explicit GmArray(size_t count) : count_(count), data_(static_cast<T*>(AscendC::GmAlloc(count * sizeof(T)))) {}
    ~GmArray() { AscendC::GmFree(data_); }
    GmArray(const GmArray&) = delete;
    GmArray& operator=(const GmArray&) = delete;

    T* data() const { return data_; }
    uint8_t* gm() const { return reinterpret_cast<uint8_t*>(data_); }
    T& operator[](size_t i) const { return data_[i]; }
    size_t size() const { return count_; }

private:
    size_t count_;
    T* data_;
};

/// Sets an environment variable for the lifetime of the object (unset: value null).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name)
    {
        const char* old = std::getenv(name);
        had_ = old != nullptr;
        old_ = had_ ? old : "";
        if (value != nullptr) {
            setenv(name, value, 1);
        } else {
            unsetenv(name);
        }
    }
    ~ScopedEnv()
    {
        if (had_) {
            setenv(name_.c_str(), old_.c_str(), 1);
        } else {
            unsetenv(name_.c_str());
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::string old_;
    bool had_ = false;
};

inline const std::vector<ascendc_cpu::Finding>& Findings()
{
    return ascendc_cpu::LastRunFindings();
}

inline std::string Describe(const std::vector<ascendc_cpu::Finding>& findings)
{
    std::string text;
    for (const auto& f : findings) {
        text += ascendc_cpu::FormatFinding(f) + "\n";
    }
    return text.empty() ? "(no findings)" : text;
}

/// True if some finding of the last run has this check, core and tensor (and severity).
inline bool HasFinding(const std::string& check, int64_t core, const std::string& tensor,
                       ascendc_cpu::Severity severity = ascendc_cpu::Severity::kError)
{
    for (const auto& f : Findings()) {
        if (f.check == check && f.core == core && f.tensor == tensor && f.severity == severity) {
            return true;
        }
    }
    return false;
}

/// True if every finding of the last run has this check.
inline bool OnlyCheck(const std::string& check)
{
    for (const auto& f : Findings()) {
        if (f.check != check) {
            return false;
        }
    }
    return !Findings().empty();
}

}  // namespace twin_test

#endif  // ASCENDC_CPU_TESTS_TWIN_TEST_UTIL_H
