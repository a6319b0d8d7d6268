/* Disk space reserve for the sqlite backend: a preallocated file (<data dir>/kgate.reserve, default 4 MiB) that
 * is given back to the filesystem when the disk is full and a delete needs room, so that deleting (and compacting)
 * can still free space through the API, and that is allocated again once the filesystem has room for it plus a
 * margin. Like etcd's NOSPACE alarm, the store accepts only deletes while the reserve is gone (sqlite.c). */
#ifndef KG_STORAGE_RESERVE_H
#define KG_STORAGE_RESERVE_H

#include <stdbool.h>
#include <stdint.h>

#define KG_RESERVE_DEFAULT_BYTES (4 << 20)
#define KG_RESERVE_MARGIN_BYTES (1 << 20) /* free space beyond the reserve before it is taken again */

typedef struct kg_reserve {
    char *path; /* NULL: no reserve (disabled) */
    int64_t size;
    bool present;  /* the file holds size allocated bytes */
    bool released; /* given back by kg_reserve_release and not allocated again since */
} kg_reserve;

/* Set up the reserve in dir (size 0: default; < 0: disabled) and allocate it if the filesystem has room; a reserve
 * that cannot be allocated now is not an error (present stays false; kg_reserve_refill tries again). */
void kg_reserve_init(kg_reserve *r, const char *dir, int64_t size);
/* Give the space back (unlink the file). */
void kg_reserve_release(kg_reserve *r);
/* If the reserve is gone and the filesystem has size + KG_RESERVE_MARGIN_BYTES free, allocate it again. True when
 * the reserve is present afterwards. Cheap when there is no room (one statvfs). */
bool kg_reserve_refill(kg_reserve *r);
/* Forget the reserve (the file stays for the next start). */
void kg_reserve_free(kg_reserve *r);

#endif
