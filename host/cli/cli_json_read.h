/*
 * cli_json_read.h: a strict reader of JSON text (RFC 8259) into a tree, for the JSON files the
 * CLI reads back (`commit verify`: the root.json that `hyprove commit` writes). The library
 * has its own reader for snarkjs's files, which the CLI cannot reach (it calls only the public
 * API, scripts/layers.py), hence this one.
 */
#ifndef HOST_CLI_CLI_JSON_READ_H
#define HOST_CLI_CLI_JSON_READ_H

#include <stddef.h>

typedef enum {
    CLI_JSON_NULL,
    CLI_JSON_FALSE,
    CLI_JSON_TRUE,
    CLI_JSON_NUMBER,
    CLI_JSON_STRING,
    CLI_JSON_ARRAY,
    CLI_JSON_OBJECT
} cli_json_type;

typedef struct cli_jv cli_jv;
struct cli_jv {
    cli_json_type type;
    char *text;    /* CLI_JSON_STRING: decoded, NUL-terminated; CLI_JSON_NUMBER: as written */
    size_t count;  /* CLI_JSON_ARRAY, CLI_JSON_OBJECT: items */
    cli_jv *items; /* the items in order (an object's values) */
    char **keys;   /* CLI_JSON_OBJECT: keys[i] is the key of items[i]; keys are unique */
};

/* Parses len bytes of text. Returns the tree, or NULL with err holding one line that says
 * what is wrong and at which byte. Refused: anything outside the grammar, nesting deeper than
 * 64, a string holding \u0000, an object whose keys repeat (readers disagree on which value
 * wins), and no memory. Release with cli_json_free. */
cli_jv *cli_json_parse(const char *text, size_t len, char *err, size_t err_len);
void cli_json_free(cli_jv *v);

/* The member key of an object, or NULL (also when obj is not an object). */
const cli_jv *cli_json_get(const cli_jv *obj, const char *key);

#endif
