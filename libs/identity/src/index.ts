export {
  IDENTITY_HEADER,
  signIdentity,
  verifyIdentity,
  IdentityError,
  type Identity,
  type AuthMethod,
  type Role,
} from './internal-identity';
