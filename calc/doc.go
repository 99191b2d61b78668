// Package calc turns raw counter samples into displayable values the way
// PDH does (PdhCalculateCounterFromRawValue, PdhGetFormattedCounterValue,
// PdhComputeCounterStatistics), for every counter type of winperf.h.
//
// It owns: the PDH status codes (Status), the raw sample (Raw) and the
// choice of time base per type (TimeBase), the formula of every type
// (Compute, unscaled and uncapped, for logs and relog), PDH's formatting
// options (Format: scale, 100 % cap, ×1000, double/large/long) and
// statistics over a run of samples (Statistics). It imports only
// countertype and the standard library.
//
// The formulas are those of shared/conformance/counter-type-formulas.md §2.
// Where the sources disagree (§4) or say nothing (§3), these are the
// choices, each also noted beside the code:
//
//   - MULTI_TIMER_INV types: 100 × (M − ΔN/ΔD), up to 100 × M (W2003 and
//     SDK-calc), not CE's version divided by M.
//   - PERF_COUNTER_MULTI_TIMER: 100 × (ΔN/ΔD)/M without F, consistent with
//     PERF_COUNTER_TIMER (N and D are both ticks); CE/SDK-calc's ΔD/F is not
//     applied. Unverified: no shipped counter of this type was found.
//   - PERF_SAMPLE_COUNTER: a time rate ΔN/(ΔD/F) (majority; not WMI).
//   - PERF_RAW_FRACTION: 100 × N/B (display bit, SDK-calc, real data).
//   - PERF_PRECISION_*: 100 × ΔN/ΔB, B the provider's timestamp.
//   - PERF_ELAPSED_TIME: (D − N)/F from one sample, D and F the object timer
//     of the same block; start time 0 or ≥ D shows 0 (valid), F ≤ 0 is
//     NegativeTimebase.
//   - PERF_DOUBLE_RAW (PDH-internal, text logs): FirstValue holds the IEEE
//     bits of the value; Inf/NaN are InvalidData.
//   - Hexadecimal raw types compute N like the decimal ones.
//   - Text, NODATA, HISTOGRAM, base types and undocumented types:
//     InvalidData (PDH_CSTATUS_INVALID_DATA); they have no number.
//   - First sample of a two-sample type (or a previous sample whose status
//     is not OK): NewData with no number (never a 0 posing as data). Real
//     PDH's PdhGetFormattedCounterValue reports PDH_CSTATUS_INVALID_DATA
//     there; NewData lets a caller tell "wait one interval" from "bad
//     data". Value.HasValue is true only for ValidData.
//   - ΔD ≤ 0 (zero interval or clock reset), F ≤ 0, or a precision
//     timestamp delta ≤ 0: NegativeTimebase. ΔB ≤ 0 of a base, B ≤ 0, or
//     M ≤ 0: NegativeDenominator. The sources leave zero denominators
//     undocumented; these are PDH's codes for a non-positive time base and
//     denominator, which .NET shows as 0 and windows_exporter treats as
//     per-counter data errors. One exception: an AVERAGE_TIMER or
//     AVERAGE_BULK interval with no operation at all (ΔB = 0 and ΔN = 0, an
//     idle disk) is a valid 0, as .NET and perfmon show an idle disk's
//     latency, so idle disks do not leave gaps in every log row.
//   - Counter went backwards (ΔN < 0 as a signed 64-bit difference,
//     including a 32-bit counter wrapping): NegativeValue. A wrap cannot be
//     told from a provider restart, so it is not unwrapped (SDK-calc: drop
//     the older sample; .NET shows 0).
//   - A computed value is never negative. The raw counts and
//     PERF_DOUBLE_RAW show the provider's own number, sign included; every
//     other formula measures a quantity that cannot be negative (a rate, a
//     fraction, a time), and a negative result (an inverse timer whose
//     idle time ran ahead of the time base, 100 × (1 − ΔN/ΔD) < 0) is
//     NegativeValue, PDH_CALC_NEGATIVE_VALUE (0x800007D8, "A counter with
//     a negative value was detected", pdhmsg.h; PdhGetFormattedCounterValue
//     returns it, as NSClient++ and Elastic Beats report from the field:
//     github.com/mickem/nscp/issues/415, github.com/elastic/beats/pull/18361).
//     A value that fails to format is written as no value by typeperf and
//     relog (the quoted space of the first row of a real PDH-CSV), so
//     every output (text logs, SQL, perfmon, the JSON API, /metrics) leaves
//     the sample out rather than show 0 or a negative number. This holds
//     with and without the cap: PDH's cap (PDH_FMT_NOCAP100 unset) is an
//     upper bound at 100 (the pdh.h documentation of
//     PdhGetFormattedCounterValue), not a repair of invalid data.
//   - Checks run in the order: time base, denominator, value sign.
//   - Percent cap (PERF_DISPLAY_PERCENT types, unless FmtNoCap100): the
//     computed value is clamped to at most 100 before scaling (computed
//     values are never negative, above). FmtNoCap100 disables the cap,
//     giving the value Compute returns.
//   - Scale: 10^scale with scale in −10..+10 (PDH's ±7 plus the manifest
//     schema's ±10); outside that range Format returns InvalidArgument.
//   - FmtLong / FmtLarge: truncation toward zero, as C's conversion from
//     double that PDH applies; values out of range saturate.
//   - Statistics: see Statistics.
package calc
