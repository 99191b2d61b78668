#ifndef TRANSFER_OFFSETS_H
#define TRANSFER_OFFSETS_H

/* Offsets of the perfc test provider's object and counters from its
   First Counter (names) and First Help (help texts). */

#define TRANSFER_OBJECT      0 // the object comes first, at offset 0
#define BYTES_SENT           2 // its counters follow
#define AVAILABLE_BANDWIDTH  0x4

// Not used by lodctr, for the provider's code:
#define LAST_TRANSFER_OBJECT_COUNTER_OFFSET  AVAILABLE_BANDWIDTH

#endif // TRANSFER_OFFSETS_H
