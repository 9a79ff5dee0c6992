import { z } from 'zod/v4';
import { emailAddress, text, untrimmedText } from './fields';
import { User } from './users';

/** `POST /auth/register`: a new account (at the authorization server) and its profile. */
export const Registration = z
  .strictObject({
    name: text(100),
    email: emailAddress(true).meta({ description: 'Compared without regard to letter case; one account per email.' }),
    password: untrimmedText(128).min(8),
  })
  .meta({ example: { name: 'Ada', email: 'ada@example.org', password: 'correct horse' } });

/** `POST /auth/login`. */
export const Login = z
  .strictObject({ email: text(320), password: untrimmedText(128) })
  .meta({ example: { email: 'ada@example.org', password: 'correct horse' } });

/** `POST /auth/refresh`. */
export const Refresh = z.strictObject({ refresh_token: untrimmedText(4096) });

export const Registered = z.strictObject({ message: z.literal('User registered successfully'), user: User });

/** What sign-in and refresh answer. */
export const Tokens = z
  .strictObject({
    token: z.string().meta({ description: 'A JWT access token (RFC 9068).' }),
    refresh_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.int().min(1).meta({ description: 'Seconds.' }),
    refresh_expires_in: z.int().min(1).meta({ description: 'Seconds.' }),
    user: User,
  })
  .meta({
    description:
      'An access token for this API (and the speech API) and a refresh token that `POST /api/v1/auth/refresh` rotates.',
  });
export type Tokens = z.output<typeof Tokens>;
