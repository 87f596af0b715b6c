/*
 * ntt_adx.c: the adx and avx2 tiers' NTT of BN254 Fr and BLS12-381 Fr: the portable template
 * (ntt_impl.h through ntt_big_fields_impl.h) over the mulx/adcx/adox Montgomery
 * multiplication of fe_adx_gen.h (selected in arith/fe_impl.h by FE_ADX), as msm_adx.c
 * does for the base fields. Same bits as the portable tier (reduced Montgomery results);
 * nothing here runs unless the dispatch found ADX and BMI2.
 */
#include "ntt_cpu.h"
#include "ntt_field_entries.h"

#define FE_ADX 1
#include "fe_adx_gen.h"
#include "arith/curves.h"

#include "ntt_big_fields_impl.h"

BIG_FIELD_TABLES(, ntt_bn254_fr_adx_ops, ntt_bls12_381_fr_adx_ops);
