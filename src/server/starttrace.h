/* Start-up phase timings of kgate serve: with KGATE_TRACE_START set (to anything non-empty) every phase mark prints
 * one line to stderr — the phase name, wall milliseconds since the previous mark and since the first, and the process
 * CPU time so far (dynamic linking and static initialisation included). Without it a mark costs one branch. */
#ifndef KG_SERVER_STARTTRACE_H
#define KG_SERVER_STARTTRACE_H

/* Mark the end of phase `name` (a static string). Call from the starting thread only. */
void kg_start_trace(const char *name);

#endif
