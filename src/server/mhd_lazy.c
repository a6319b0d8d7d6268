/* libmicrohttpd, loaded on first use. Only the HTTP doors (serve, webhook) call it; linking it normally made every
 * kgate command — `kgate check` in CI above all — map and relocate it and its GnuTLS stack (gnutls, nettle,
 * hogweed, gmp, p11-kit, libffi, libtasn1, libidn2, libunistring) at exec: about 12 ms of CPU per start, more than
 * half of a one-object check (bench/check). The functions http.c uses are defined here with libmicrohttpd's own
 * declarations (microhttpd.h) and forward to the library, opened with dlopen on the first call and kept for the
 * process's life. If the library is missing, MHD_start_daemon fails (the server reports it); the others are only
 * reachable through a started daemon. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "base/lazylib.h"

static kg_lazylib lib = KG_LAZYLIB("libmicrohttpd", false, "libmicrohttpd.so.12", "libmicrohttpd.so");

/* The address of name in the library (NULL when it cannot be loaded and !required), looked up once per function. */
static void *sym(void **cache, const char *name, bool required)
{
    return kg_lazylib_sym(&lib, cache, name, required);
}

#define FN(name, required) sym(&name##_p, #name, required)

static void *MHD_start_daemon_va_p, *MHD_stop_daemon_p, *MHD_quiesce_daemon_p, *MHD_add_response_header_p,
    *MHD_create_response_from_buffer_p, *MHD_create_response_from_callback_p, *MHD_destroy_response_p,
    *MHD_get_connection_info_p, *MHD_get_connection_values_p, *MHD_queue_response_p, *MHD_resume_connection_p,
    *MHD_suspend_connection_p;

struct MHD_Daemon *MHD_start_daemon_va(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                       MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap)
{
    struct MHD_Daemon *(*fn)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *, MHD_AccessHandlerCallback,
                             void *, va_list) = FN(MHD_start_daemon_va, false);
    return fn ? fn(flags, port, apc, apc_cls, dh, dh_cls, ap) : NULL;
}

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
    va_list ap;
    va_start(ap, dh_cls);
    struct MHD_Daemon *d = MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
    va_end(ap);
    return d;
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
    void (*fn)(struct MHD_Daemon *) = FN(MHD_stop_daemon, true);
    fn(daemon);
}

MHD_socket MHD_quiesce_daemon(struct MHD_Daemon *daemon)
{
    MHD_socket (*fn)(struct MHD_Daemon *) = FN(MHD_quiesce_daemon, true);
    return fn(daemon);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header, const char *content)
{
    enum MHD_Result (*fn)(struct MHD_Response *, const char *, const char *) = FN(MHD_add_response_header, true);
    return fn(response, header, content);
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *(*fn)(size_t, void *, enum MHD_ResponseMemoryMode) = FN(MHD_create_response_from_buffer, true);
    return fn(size, buffer, mode);
}

struct MHD_Response *MHD_create_response_from_callback(uint64_t size, size_t block_size, MHD_ContentReaderCallback crc,
                                                       void *crc_cls, MHD_ContentReaderFreeCallback crfc)
{
    struct MHD_Response *(*fn)(uint64_t, size_t, MHD_ContentReaderCallback, void *, MHD_ContentReaderFreeCallback) =
        FN(MHD_create_response_from_callback, true);
    return fn(size, block_size, crc, crc_cls, crfc);
}

void MHD_destroy_response(struct MHD_Response *response)
{
    void (*fn)(struct MHD_Response *) = FN(MHD_destroy_response, true);
    fn(response);
}

/* The info types http.c asks for take no extra argument. */
const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *connection,
                                                        enum MHD_ConnectionInfoType info_type, ...)
{
    const union MHD_ConnectionInfo *(*fn)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...) =
        FN(MHD_get_connection_info, true);
    return fn(connection, info_type);
}

int MHD_get_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator,
                              void *iterator_cls)
{
    int (*fn)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *) =
        FN(MHD_get_connection_values, true);
    return fn(connection, kind, iterator, iterator_cls);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
                                   struct MHD_Response *response)
{
    enum MHD_Result (*fn)(struct MHD_Connection *, unsigned int, struct MHD_Response *) = FN(MHD_queue_response, true);
    return fn(connection, status_code, response);
}

void MHD_resume_connection(struct MHD_Connection *connection)
{
    void (*fn)(struct MHD_Connection *) = FN(MHD_resume_connection, true);
    fn(connection);
}

void MHD_suspend_connection(struct MHD_Connection *connection)
{
    void (*fn)(struct MHD_Connection *) = FN(MHD_suspend_connection, true);
    fn(connection);
}
