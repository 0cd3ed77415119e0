// ReadFile/WriteFile of data_utils.h, for kernel unit tests that exchange data with files. In an
// object file of its own: a test that links ops-nn's data_utils.cpp does not pull this one in.
#include "data_utils.h"

#include <cstdio>
#include <fstream>

bool ReadFile(const std::string& filePath, size_t& fileSize, void* buffer, size_t bufferSize)
{
    std::ifstream file(filePath, std::ios::binary | std::ios::ate);
    if (!file) {
        std::fprintf(stderr, "ReadFile: cannot open %s\n", filePath.c_str());
        return false;
    }
    const std::streamoff size = file.tellg();
    if (size < 0 || static_cast<size_t>(size) > bufferSize) {
        std::fprintf(stderr, "ReadFile: %s has %lld bytes, the buffer %zu\n", filePath.c_str(),
                     static_cast<long long>(size), bufferSize);
        return false;
    }
    file.seekg(0);
    file.read(static_cast<char*>(buffer), size);
    fileSize = static_cast<size_t>(size);
    return static_cast<bool>(file);
}

bool WriteFile(const std::string& filePath, const void* buffer, size_t size)
{
    std::ofstream file(filePath, std::ios::binary | std::ios::trunc);
    if (!file) {
        std::fprintf(stderr, "WriteFile: cannot open %s\n", filePath.c_str());
        return false;
    }
    file.write(static_cast<const char*>(buffer), static_cast<std::streamsize>(size));
    return static_cast<bool>(file);
}
