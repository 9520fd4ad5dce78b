// spdlog's compiled part, built once into this project instead of linking
// libspdlog.so: mapping the shared library costs 0.5 MiB of resident memory
// (tests/bench/memory_soak.py), of which the exporter uses a logger, the
// registry, the pattern formatter and the stderr sink. Every other file
// includes spdlog's headers in their "compiled library" mode
// (SPDLOG_COMPILED_LIB, set by the rnic_spdlog target), which leaves the
// implementation out of them: header-only mode made each such file compile
// four times slower.
#ifndef SPDLOG_COMPILED_LIB
#error "spdlog_impl.cc needs SPDLOG_COMPILED_LIB (the rnic_spdlog target)"
#endif

#include <mutex>

// The implementation files (*-inl.h) of what is compiled here.
#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_color_sinks-inl.h>
#include <spdlog/sinks/stdout_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

// The sink templates the exporter, its tests and the registry's default
// logger use, instantiated once.
template class spdlog::sinks::base_sink<std::mutex>;
template class spdlog::sinks::base_sink<spdlog::details::null_mutex>;
template class spdlog::sinks::stdout_sink_base<spdlog::details::console_mutex>;
template class spdlog::sinks::stdout_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::stderr_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stdout_sink<
    spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stderr_sink<
    spdlog::details::console_mutex>;
