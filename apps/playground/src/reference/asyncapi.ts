/**
 * The AsyncAPI 3.0 document (`/asyncapi.json`) as a page: servers, then each channel with the
 * operations on it (who sends what) and its messages' payload schemas and examples. Built with DOM
 * calls only (no HTML strings), so nothing in the document can become markup.
 */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Follows a local `#/a/b` reference. */
function resolve(root: Obj, value: Json | undefined): Json | undefined {
  if (!isObj(value) || typeof value.$ref !== 'string') return value;
  let node: Json | undefined = root;
  for (const part of value.$ref.replace(/^#\//, '').split('/')) node = isObj(node) ? node[part] : undefined;
  return node;
}

function code(value: Json): HTMLElement {
  const pre = el('pre');
  pre.append(el('code', JSON.stringify(value, null, 2)));
  return pre;
}

function messageSection(root: Obj, key: string, message: Obj): HTMLElement {
  const section = el('details', undefined, 'message');
  section.id = `message-${key}`;
  section.append(
    el(
      'summary',
      `${str(message.title) || str(message.name) || key}  ·  ${str(message.contentType) || str(root.defaultContentType)}`,
    ),
  );
  if (message.summary) section.append(el('p', str(message.summary)));
  if (message.payload) {
    section.append(el('h5', 'Payload'), code(message.payload));
  }
  for (const example of Array.isArray(message.examples) ? message.examples : []) {
    if (isObj(example)) section.append(el('h5', `Example: ${str(example.name)}`), code(example.payload ?? null));
  }
  return section;
}

function render(root: Obj, main: HTMLElement): void {
  const info = isObj(root.info) ? root.info : {};
  main.replaceChildren(el('h1', `${str(info.title)} ${str(info.version)}`), el('p', str(info.description)));
  main.append(el('p', `AsyncAPI ${str(root.asyncapi)} · raw document: /asyncapi.json`, 'muted'));

  main.append(el('h2', 'Servers'));
  const servers = el('ul');
  for (const [name, server] of Object.entries(isObj(root.servers) ? root.servers : {})) {
    if (!isObj(server)) continue;
    servers.append(
      el(
        'li',
        `${name}: ${str(server.protocol)}://${str(server.host)}${str(server.pathname)} — ${str(server.description)}`,
      ),
    );
  }
  main.append(servers);

  const operations = Object.entries(isObj(root.operations) ? root.operations : {});
  for (const [channelKey, channelValue] of Object.entries(isObj(root.channels) ? root.channels : {})) {
    if (!isObj(channelValue)) continue;
    const section = el('section', undefined, 'channel');
    section.id = `channel-${channelKey}`;
    section.append(el('h2', str(channelValue.title) || channelKey), el('p', str(channelValue.address), 'address'));
    if (channelValue.description) section.append(el('p', str(channelValue.description)));
    const bindings = isObj(channelValue.bindings) ? channelValue.bindings : null;
    if (bindings) section.append(el('h4', 'Bindings'), code(bindings));
    for (const [opKey, op] of operations) {
      if (!isObj(op) || !isObj(op.channel) || op.channel.$ref !== `#/channels/${channelKey}`) continue;
      const who = op.action === 'send' ? 'The platform sends' : 'Clients send';
      section.append(el('h3', `${who}: ${str(op.title) || opKey}`));
      if (op.description) section.append(el('p', str(op.description)));
      const list = el('ul');
      for (const ref of Array.isArray(op.messages) ? op.messages : []) {
        const message = resolve(root, ref);
        if (isObj(message)) list.append(el('li', str(message.title) || str(message.name)));
      }
      section.append(list);
    }
    section.append(el('h3', 'Messages'));
    for (const [key, message] of Object.entries(isObj(channelValue.messages) ? channelValue.messages : {})) {
      const resolved = resolve(root, message);
      if (isObj(resolved)) section.append(messageSection(root, `${channelKey}-${key}`, resolved));
    }
    main.append(section);
  }
  const schemas = isObj(root.components) && isObj(root.components.schemas) ? root.components.schemas : {};
  if (Object.keys(schemas).length) {
    main.append(el('h2', 'Schemas'));
    for (const [name, schema] of Object.entries(schemas)) {
      const details = el('details', undefined, 'message');
      details.id = `schema-${name}`;
      details.append(el('summary', name), code(schema));
      main.append(details);
    }
  }
}

const main = document.getElementById('reference')!;
main.classList.add('asyncapi');
main.replaceChildren(el('p', 'Loading /asyncapi.json…'));
fetch('/asyncapi.json')
  .then(async (res) => {
    if (!res.ok) throw new Error(`GET /asyncapi.json: ${res.status}`);
    render((await res.json()) as Obj, main);
  })
  .catch((err: unknown) => main.replaceChildren(el('p', err instanceof Error ? err.message : String(err), 'error')));
