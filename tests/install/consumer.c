/* A program built against an installed hyprove (tests/install_test.py): the header's version
 * must be the library's, and a context must work (one small MSM on the CPU, checked against
 * the generator's double). */
#include <hyprove.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    unsigned major = 99, minor = 99, patch = 99;
    const char *v = hpr_version(&major, &minor, &patch);
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    unsigned char points[128], scalars[64] = {0}, sum[64], twice[64];
    if (strcmp(v, HPR_VERSION_STRING) != 0 || major != HPR_VERSION_MAJOR || minor != HPR_VERSION_MINOR ||
        patch != HPR_VERSION_PATCH) {
        fprintf(stderr, "library version %s, header %s\n", v, HPR_VERSION_STRING);
        return 1;
    }
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.threads = 1;
    /* BN254's G1 generator (1, 2) twice: G + G must equal 2 G */
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK ||
        hpr_point_from_decimal(HPR_CURVE_BN254, HPR_G1, "1", "2", "1", points) != HPR_OK)
        return 1;
    memcpy(points + 64, points, 64);
    scalars[0] = scalars[32] = 1;
    int ok = hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, 2, sum) == HPR_OK;
    scalars[0] = 2;
    scalars[32] = 0;
    ok = ok && hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, 2, twice) == HPR_OK &&
         memcmp(sum, twice, 64) == 0;
    hpr_ctx_destroy(ctx);
    printf("hyprove %s: %s\n", v, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
