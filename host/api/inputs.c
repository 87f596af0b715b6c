/*
 * host/api/inputs.c: hpr_input_read, the library's input checks (runtime/base/rt_fs.h) offered to the
 * programs that read their inputs themselves and hand the library buffers: the CLI reads
 * its MSM, NTT, witness and JSON inputs through it, so that "-", FIFOs and /proc files are
 * streams there and devices and directories are refused with the same words as the
 * library's own path-taking calls use, and nothing blocks opening a file it then refuses.
 */
#include "hyprove.h"

#include "runtime/base/rt_fs.h"

#include <errno.h>
#include <stdio.h>

hpr_status hpr_input_read(const char *path, int streams, size_t limit, void **data, size_t *len, char *why,
                          size_t why_len)
{
    char words[256];
    unsigned char *bytes = NULL;
    if (why && why_len)
        why[0] = '\0';
    if (!path || !data || !len)
        return HPR_ERR_INVALID_ARGUMENT;
    *data = NULL;
    *len = 0;
    int rc = rt_read_file(path, streams ? RT_INPUT_STREAMS : 0u, limit ? limit : (size_t)1 << 32, &bytes, len, words,
                          sizeof words);
    if (rc != 0) {
        if (why && why_len)
            snprintf(why, why_len, "%s", words);
        return rc == ENOMEM ? HPR_ERR_OUT_OF_MEMORY : HPR_ERR_IO;
    }
    *data = bytes;
    return HPR_OK;
}
