import { toGlobalId } from '@platform/graphql-schema';
import { api, gql, startAuthApp, startContent, stopContent, type RunningContent } from './helpers';

// Emails are unique whatever their case: taking another account's email in other letters is a
// conflict in each interface's own shape (REST 400 {errors:{email}}, a GraphQL payload error), never a 5xx.

let auth: Awaited<ReturnType<typeof startAuthApp>>;
let app: RunningContent;

beforeAll(async () => {
  auth = await startAuthApp();
  app = await startContent({ AUTH_URL: auth.url });
}, 120_000);

afterAll(async () => {
  await stopContent(app);
  await auth?.stop();
});

const unique = () => `${Date.now()}.${Math.random().toString(36).slice(2, 8)}`;

async function register(email: string): Promise<string> {
  const res = await api(app, 'POST', '/api/v1/auth/register', {
    caller: 'anonymous',
    body: { name: 'Case Person', email, password: 'long enough pw' },
  });
  expect(res.status).toBe(201);
  return (res.json.user as { id: string }).id;
}

describe('email uniqueness ignores case', () => {
  it('REST: changing an email to another account’s email in other case is 400 {errors:{email}}, nothing changes', async () => {
    const taken = `Taken.${unique()}@Example.org`;
    await register(taken);
    const mover = `mover.${unique()}@example.org`;
    const id = await register(mover);
    for (const email of [taken.toUpperCase(), taken.toLowerCase(), `  ${taken}  `.trim()]) {
      const res = await api(app, 'PUT', `/api/v1/users/${id}`, {
        caller: { id, role: 'USER' },
        body: { name: 'Case Person', email },
      });
      expect({ status: res.status, body: res.json }).toEqual({
        status: 400,
        body: { errors: { email: expect.any(String) } },
      });
    }
    const me = await api(app, 'GET', '/api/v1/users/me', { caller: { id, role: 'USER' } });
    expect(me.json.email).toBe(mover);
    // The old credentials still work, the taken address still belongs to its owner.
    expect(
      (
        await api(app, 'POST', '/api/v1/auth/login', {
          caller: 'anonymous',
          body: { email: mover, password: 'long enough pw' },
        })
      ).status,
    ).toBe(200);
  });

  it('REST: registering an existing email in other case is 400 {errors:{email}}', async () => {
    const email = `dup.${unique()}@example.org`;
    await register(email);
    const res = await api(app, 'POST', '/api/v1/auth/register', {
      caller: 'anonymous',
      body: { name: 'Again', email: email.toUpperCase(), password: 'long enough pw' },
    });
    expect({ status: res.status, body: res.json }).toEqual({
      status: 400,
      body: { errors: { email: expect.any(String) } },
    });
  });

  it('GraphQL: updateUser to another account’s email in other case is a payload error on input.email', async () => {
    const taken = `gql.taken.${unique()}@example.org`;
    await register(taken);
    const id = await register(`gql.mover.${unique()}@example.org`);
    const q = `mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { success message errors { field code } user { email } } }`;
    const res = await gql(
      app,
      q,
      { id: toGlobalId('User', id), i: { email: taken.toUpperCase() } },
      { id, role: 'USER' },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.updateUser).toMatchObject({
      success: false,
      user: null,
      errors: [{ field: expect.stringMatching(/email$/), code: expect.any(String) }],
    });
  });

  it('auth internal API: a clash in other case is 409 email_taken, on create and on update', async () => {
    const headers = {
      'content-type': 'application/json',
      'x-internal-secret': 'content-tests-internal-secret-0123456789',
    };
    const email = `internal.${unique()}@example.org`;
    const first = await fetch(`${auth.url}/internal/accounts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'A', email: ` ${email.toUpperCase()} `, password: 'long enough pw' }),
    });
    expect(first.status).toBe(201);
    const dup = await fetch(`${auth.url}/internal/accounts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'B', email, password: 'long enough pw' }),
    });
    expect({ status: dup.status, body: await dup.json() }).toEqual({
      status: 409,
      body: { error: 'email_taken', error_description: expect.any(String) },
    });
    const other = (await (
      await fetch(`${auth.url}/internal/accounts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'C', email: `other.${email}`, password: 'long enough pw' }),
      })
    ).json()) as { id: string };
    const patch = await fetch(`${auth.url}/internal/accounts/${other.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ email: email.replace('internal', 'INTERNAL') }),
    });
    expect({ status: patch.status, body: await patch.json() }).toEqual({
      status: 409,
      body: { error: 'email_taken', error_description: expect.any(String) },
    });
  });
});
