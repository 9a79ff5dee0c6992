import Ajv2020 from 'ajv/dist/2020';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { ApiDocument, JsonValue } from '@platform/api-docs';

type JsonObject = { [key: string]: JsonValue };
const DOCUMENT_ID = 'asyncapi:document';

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks messages seen on the wire against the AsyncAPI document: `problems(channel, message, payload)`
 * finds the channel's message whose payload schema pins `type` to the message's own type (CloudEvents
 * `type`, graphql-ws `type`) and lists every way the payload departs from it. The payload schemas are
 * JSON Schema (AsyncAPI's default schema format is a superset of draft 07; ours use the 2020-12 subset).
 */
export function messageValidator(document: ApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  for (const [name, format] of Object.entries(fullFormats)) ajv.addFormat(name, format);
  ajv.addSchema(document as object, DOCUMENT_ID);
  const channels = isObject(document.channels) ? document.channels : {};

  /** The channel key whose address is `address`. */
  function channelAt(address: string): string | undefined {
    return Object.keys(channels).find((key) => {
      const channel = channels[key];
      return isObject(channel) && channel.address === address;
    });
  }

  function problems(channelKey: string, type: string, payload: unknown): string[] {
    const channel = channels[channelKey];
    const messages = isObject(channel) && isObject(channel.messages) ? channel.messages : {};
    const messageKey = Object.keys(messages).find((key) => {
      const message = messages[key];
      const schema = isObject(message) && isObject(message.payload) ? message.payload : undefined;
      const typeSchema = schema && isObject(schema.properties) ? schema.properties.type : undefined;
      return isObject(typeSchema) && typeSchema.const === type;
    });
    if (!messageKey) return [`channel ${channelKey} has no message of type ${type}`];
    return payloadProblems(channelKey, messageKey, payload);
  }

  /** Every way `payload` departs from the payload schema of the channel's message `messageKey`. */
  function payloadProblems(channelKey: string, messageKey: string, payload: unknown): string[] {
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/channels/${channelKey}/messages/${messageKey}/payload` });
    if (validate(payload)) return [];
    return (validate.errors ?? []).map(
      (error) => `${channelKey}/${messageKey}: ${error.instancePath || '/'} ${error.message ?? 'is invalid'}`,
    );
  }

  return { channelAt, problems, payloadProblems };
}
