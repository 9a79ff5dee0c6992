/**
 * The scope that lets a client learn the account's email: only tokens granted it carry email-derived
 * claims (`username`, shown at introspection). The platform's own services never read the email from a
 * token (content gets it from auth's internal API), so no other scope implies it.
 */
export const EMAIL_SCOPE = 'email';

/** Scopes this server knows (metadata `scopes_supported`); a client is registered with a subset. */
export const SUPPORTED_SCOPES = ['content:read', 'content:write', 'speech:read', 'speech:write', 'offline_access', EMAIL_SCOPE];
