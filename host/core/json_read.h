/*
 * json_read.h: a strict reader of JSON text (RFC 8259) into a tree, for the files that come
 * from snarkjs (verification keys, proofs, public signals). Internal to the library.
 */
#ifndef HOST_JSON_READ_H
#define HOST_JSON_READ_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value json_value;
struct json_value {
    json_type type;
    char *text;          /* JSON_STRING: the decoded string; JSON_NUMBER: the number as written */
    size_t count;        /* JSON_ARRAY / JSON_OBJECT: number of items */
    json_value *items;   /* the items (an object's values, in order) */
    char **keys;         /* JSON_OBJECT: the keys, items[i]'s key is keys[i] */
};

/* Parses len bytes of text (no NUL needed). Returns the root, or NULL with a one-line reason
 * (naming the byte offset) in err. Nesting is limited to 64 levels; a string holding U+0000
 * (\u0000) is refused, as the tree's strings end at NUL; an object whose keys repeat is
 * refused (readers differ on which value wins). Release with json_free. */
json_value *json_parse(const char *text, size_t len, char *err, size_t err_len);
void json_free(json_value *v);

/* The value of key in an object (keys are unique), or NULL. */
const json_value *json_get(const json_value *obj, const char *key);

#endif
