/* cel_regex.h - a tiny C interface over RE2 (C++), used by CEL's matches(), the Kubernetes regex library
 * (find/findAll) and the format library. RE2 gives Go regexp syntax (as cel-go uses) and linear-time matching.
 *
 * A compiled cel_regex is immutable and safe to use from many threads at once (RE2 objects are thread-safe).
 * Texts and patterns are UTF-8 byte strings with explicit lengths (embedded NULs allowed).
 */
#ifndef KG_CEL_REGEX_H
#define KG_CEL_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cel_regex cel_regex;

/* Default memory bound of one compiled program (RE2's own default is 8 MiB; cel-go uses Go's regexp which has
 * no such knob but rejects programs above a size limit). */
#define CEL_REGEX_DEFAULT_MAX_MEM ((int64_t)8 << 20)

enum {
    /* Format compile errors as Go's regexp package does ("error parsing regexp: missing closing ): `(a`"),
     * which is what cel-go reports. Without it the error text is RE2's own ("missing ): (a"). */
    CEL_REGEX_GO_ERRORS = 1 << 0,
    /* Treat pattern and text as Latin-1 instead of UTF-8 (not used by CEL; here for completeness). */
    CEL_REGEX_LATIN1 = 1 << 1,
    /* Always use RE2, even for the simple ASCII patterns that otherwise get a small DFA for cel_regex_partial_match
     * (tests compare the two). */
    CEL_REGEX_NO_DFA = 1 << 2,
};

/* Compiles `pattern` (len bytes). max_mem <= 0 means CEL_REGEX_DEFAULT_MAX_MEM. On failure returns NULL and,
 * if err != NULL, writes the NUL-terminated error text (truncated to errcap). Free with cel_regex_free. */
cel_regex *cel_regex_compile(const char *pattern, size_t len, int64_t max_mem, unsigned flags, char *err,
                             size_t errcap);
void cel_regex_free(cel_regex *re);

/* The pattern text as given (NUL-terminated), its byte length, and the number of capture groups. */
const char *cel_regex_pattern(const cel_regex *re, size_t *len);
int cel_regex_num_groups(const cel_regex *re);
/* Whether cel_regex_partial_match runs on the small DFA (diagnostics and tests). */
bool cel_regex_uses_dfa(const cel_regex *re);
/* Whether that DFA reads four bytes per table lookup (its stride table fits; diagnostics and tests). */
bool cel_regex_dfa_uses_stride(const cel_regex *re);

/* Test hook: bit 1 set when the compile-time syntax check accepts the pattern for lazy building, bit 0 when the
 * small DFA's own parser does (the two must agree). */
int cel_regex_subset_selftest(const char *pattern, size_t len);

/* Whole-text match (RE2::FullMatch). */
bool cel_regex_full_match(const cel_regex *re, const char *text, size_t len);
/* Substring match anywhere in the text (RE2::PartialMatch) - the semantics of CEL's matches(). Simple ASCII
 * patterns (literals, ASCII classes, groups, |, quantifiers, leading ^ / trailing $) run on a small precomputed DFA
 * (one table lookup per byte, or per four bytes); everything else on RE2. */
bool cel_regex_partial_match(const cel_regex *re, const char *text, size_t len);
/* The same for a text the caller knows to be all ASCII (no check of its bytes). */
bool cel_regex_partial_match_ascii(const cel_regex *re, const char *text, size_t len);

/* Leftmost-first match at or after byte offset `from` (the whole text stays the context for ^, \b, ...).
 * On success stores the byte span [*start, *end) of the whole match and returns true. */
bool cel_regex_find(const cel_regex *re, const char *text, size_t len, size_t from, size_t *start, size_t *end);

/* Calls fn for each successive non-overlapping match, exactly like Go's regexp.FindAllString(text, limit):
 * an empty match right after the previous match is skipped, and after an empty match the search advances by one
 * UTF-8 character. limit < 0 means no limit; limit == 0 finds nothing. If fn returns false, iteration stops.
 * Returns the number of matches delivered. Linear in len times the pattern size. */
typedef bool (*cel_regex_match_fn)(void *ud, size_t start, size_t end);
size_t cel_regex_find_all(const cel_regex *re, const char *text, size_t len, int64_t limit, cel_regex_match_fn fn,
                          void *ud);

#ifdef __cplusplus
}
#endif

#endif
