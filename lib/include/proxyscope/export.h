/* SPDX-License-Identifier: MIT */
/* Symbol visibility for the proxyscope libraries: everything is hidden unless marked ENC_API. */
#ifndef PROXYSCOPE_EXPORT_H
#define PROXYSCOPE_EXPORT_H

#if defined(__GNUC__)
#define ENC_API __attribute__((visibility("default")))
#else
#define ENC_API
#endif

#endif /* PROXYSCOPE_EXPORT_H */
