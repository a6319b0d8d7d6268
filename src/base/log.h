/* klog-style logging to stderr: "I1121 20:11:45.123456   1234 file.c:42] message".
 * Verbosity follows kube-apiserver's -v: kg_log_v(2, ...) prints only with -v=2 or higher. */
#ifndef KG_BASE_LOG_H
#define KG_BASE_LOG_H

extern int kg_log_verbosity;
/* Lowest severity written (klog's -stderrthreshold): 0 info (default), 1 warnings, 2 errors. Command-line tools
 * such as `kgate check` raise it so their output is not mixed with a server's progress lines. */
extern int kg_log_threshold;

void kg_log_at(char severity, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define KG_INFO(...) kg_log_at('I', __FILE__, __LINE__, __VA_ARGS__)
#define KG_WARN(...) kg_log_at('W', __FILE__, __LINE__, __VA_ARGS__)
#define KG_ERROR(...) kg_log_at('E', __FILE__, __LINE__, __VA_ARGS__)
#define KG_V(level, ...)                                                                                               \
    do {                                                                                                               \
        if (kg_log_verbosity >= (level))                                                                               \
            kg_log_at('I', __FILE__, __LINE__, __VA_ARGS__);                                                           \
    } while (0)

#endif
