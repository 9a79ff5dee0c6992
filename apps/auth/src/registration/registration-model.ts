import { Schema, type Connection, type Model } from 'mongoose';
import type { ClientAuthMethod } from '@platform/contracts';

/**
 * What dynamic registration (RFC 7591/7592) keeps beside the client itself (clients/client-model.ts):
 * the registration access token's SHA-256 and the metadata the client registered that the server only
 * stores and returns (names, URIs of pages about the client, contacts, software). One per dynamically
 * registered client; clients registered by an administrator have none and cannot be managed at
 * `/register/:client_id`.
 */
export interface RegistrationDoc {
  _id: string; // client_id
  tokenHash: string;
  tokenEndpointAuthMethod: ClientAuthMethod;
  /** RFC 7591 §2 informational metadata, as registered (only the fields client-metadata.ts knows). */
  info: Record<string, unknown>;
  createdAt: Date;
}

const schema = new Schema<RegistrationDoc>(
  {
    _id: String,
    tokenHash: { type: String, required: true },
    tokenEndpointAuthMethod: { type: String, required: true },
    info: { type: Schema.Types.Mixed, default: {} },
  },
  {
    collection: 'client_registrations',
    timestamps: { createdAt: true, updatedAt: false },
    versionKey: false,
    minimize: false,
  },
);

export function registrationModel(conn: Connection): Model<RegistrationDoc> {
  return (
    (conn.models.ClientRegistration as Model<RegistrationDoc> | undefined) ??
    conn.model<RegistrationDoc>('ClientRegistration', schema)
  );
}
