import ipaddr from 'ipaddr.js';
import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { PROVIDERS } from '#domain/billing';

/** Request-schema building blocks of the catalog (services, floors, networks); all refusals are 422. */

/** A dotted-quad IPv4 address or an IPv6 address (no shorthand like `127.1` or octal parts). */
export const isIpAddress = (s: string) => ipaddr.IPv4.isValidFourPartDecimal(s) || ipaddr.IPv6.isValid(s);

export const ipAddress = lazySchema(() => z.string().trim().refine(isIpAddress, { message: 'Invalid IP address' }));
export const ipv4Address = lazySchema(() =>
  z
    .string()
    .trim()
    .refine((s) => ipaddr.IPv4.isValidFourPartDecimal(s), { message: 'Invalid IPv4 address' }),
);

/**
 * An IPv4 network in CIDR notation with no host bits set: `10.0.0.5/24` is refused (naming the
 * network meant) rather than silently rewritten, so what is stored is what the caller sent.
 */
export const ipv4Cidr = lazySchema(() =>
  z
    .string()
    .trim()
    .superRefine((s, ctx) => {
      if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(s)) {
        ctx.addIssue({ code: 'custom', message: 'Invalid IPv4 CIDR (expected a.b.c.d/n with n from 0 to 32)' });
        return;
      }
      const [address, prefix] = ipaddr.IPv4.parseCIDR(s);
      const network = ipaddr.IPv4.networkAddressFromCIDR(s).toString();
      if (address.toString() !== network)
        ctx.addIssue({ code: 'custom', message: `CIDR has host bits set; did you mean ${network}/${prefix}?` });
    }),
);

/** A CIDR used as a search range: any valid IPv4 CIDR (host bits are ignored when matching). */
export const ipv4Range = lazySchema(() =>
  z
    .string()
    .trim()
    .refine((s) => ipaddr.IPv4.isValidCIDRFourPartDecimal(s), { message: 'Invalid IPv4 CIDR range' }),
);

export const provider = lazySchema(() => z.enum(PROVIDERS));
/** Optional free text: trimmed, capped; null clears it. */
export const optionalText = (max = 255) => z.string().trim().max(max).nullish();
export const tags = lazySchema(() => z.array(z.string().trim().min(1).max(64)).max(50).nullish());
export const nonNegativeInt = lazySchema(() => z.number().int().min(0).max(2_147_483_647).nullish());

/** A URL with one of the given schemes (checked on the text as typed, case-insensitively). */
export const urlWithScheme = (schemes: string[], max = 2048) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => schemes.some((p) => s.toLowerCase().startsWith(p) && s.length > p.length), {
      message: `Must start with ${schemes.join(' or ')}`,
    });

/** A query parameter that may repeat (`tags=a&tags=b`): the query parser gives a string or an array. */
export const repeatable = lazySchema(() =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter(Boolean)),
);
