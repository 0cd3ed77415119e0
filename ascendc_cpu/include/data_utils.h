// data_utils.h: the file helpers kernel unit tests include (the twin itself never touches files).
#ifndef ASCENDC_CPU_DATA_UTILS_H
#define ASCENDC_CPU_DATA_UTILS_H

#include <cstddef>
#include <string>

/// Reads up to `bufferSize` bytes of `filePath` into `buffer`; `fileSize` receives the file's size.
/// Returns false (and prints why) if the file cannot be read or does not fit.
bool ReadFile(const std::string& filePath, size_t& fileSize, void* buffer, size_t bufferSize);
/// Writes `size` bytes of `buffer` to `filePath`, replacing it. Returns false on failure.
bool WriteFile(const std::string& filePath, const void* buffer, size_t size);

#endif  // ASCENDC_CPU_DATA_UTILS_H
