export {
  IDENTITY_HEADER,
  signIdentity,
  verifyIdentity,
  IdentityError,
  type Identity,
  type AuthMethod,
} from './internal-identity';
export { ROLES, PLAN_NAMES, isRole, isPlanName, type Role, type PlanName } from './closed-sets';
