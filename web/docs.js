// Renders /api/openapi.json for people. Small on purpose: no third-party viewer, no network
// beyond the gateway itself (gateways have no internet).
const $ = (id) => document.getElementById(id)

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'class') node.className = value
    else node.setAttribute(key, value)
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child)
  return node
}

/**
 * The few Markdown forms the API document uses, as DOM nodes (never innerHTML): `code`,
 * **bold** and [links](/path). Anything else stays plain text.
 */
function inline(text) {
  const nodes = []
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g
  let last = 0
  for (const match of String(text ?? '').matchAll(pattern)) {
    if (match.index > last) nodes.push(text.slice(last, match.index))
    if (match[1] !== undefined) nodes.push(el('code', {}, match[1]))
    else if (match[2] !== undefined) nodes.push(el('strong', {}, match[2]))
    else if (/^(\/|#|https?:)/.test(match[4])) nodes.push(el('a', { href: match[4] }, match[3]))
    else nodes.push(match[3])
    last = match.index + match[0].length
  }
  if (last < String(text ?? '').length) nodes.push(text.slice(last))
  return nodes
}

/** Several lines of Markdown: one paragraph-like block per line. */
function lines(text) {
  return String(text ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => el('div', { class: 'line' }, inline(line)))
}

/** Follows local $refs and merges allOf, so a schema reads as one object. */
function flatten(schema, doc, depth = 0) {
  if (!schema || depth > 8) return schema
  if (schema.$ref)
    return flatten(
      schema.$ref
        .split('/')
        .slice(1)
        .reduce((node, key) => node?.[key], doc),
      doc,
      depth + 1,
    )
  if (schema.allOf) {
    const merged = { type: 'object', properties: {}, required: [] }
    for (const part of schema.allOf.map((s) => flatten(s, doc, depth + 1))) {
      Object.assign(merged.properties, part.properties ?? {})
      merged.required.push(...(part.required ?? []))
    }
    return merged
  }
  // A body of two forms (a route's error, or the HTTP host's own answer): the route's form is
  // shown; the description names the other.
  if (schema.anyOf) return flatten(schema.anyOf[0], doc, depth + 1)
  return schema
}

/** A response, or the shared one it refers to (components/responses). */
const resolved = (response, doc) => (response?.$ref ? flatten(response, doc) : response)

const pretty = (schema, doc) => JSON.stringify(flatten(schema, doc), null, 2)

function parametersTable(parameters) {
  if (!parameters?.length) return null
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, el('th', {}, 'Parameter'), el('th', {}, 'In'), el('th', {}, 'Required'), el('th', {}, 'Description'))),
    el(
      'tbody',
      {},
      parameters.map((p) =>
        el(
          'tr',
          {},
          el('td', {}, el('code', {}, p.name)),
          el('td', {}, p.in),
          el('td', {}, p.required ? 'yes' : 'no'),
          el('td', {}, inline(p.description ?? '')),
        ),
      ),
    ),
  )
}

function responsesTable(responses, doc) {
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, el('th', {}, 'Status'), el('th', {}, 'returnCode'), el('th', {}, 'Meaning'))),
    el(
      'tbody',
      {},
      Object.entries(responses).map(([status, shared]) => {
        const response = resolved(shared, doc)
        const schema = flatten(response.content?.['application/json']?.schema, doc)
        const codes = schema?.properties?.returnCode?.enum?.join(', ') ?? ''
        return el('tr', {}, el('td', { class: 'status' }, status), el('td', {}, codes), el('td', {}, lines(response.description)))
      }),
    ),
  )
}

function operationBlock(path, method, op, doc) {
  const secured = (op.security ?? []).some((s) => Object.keys(s).includes('bearerAuth'))
  const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))
  const searchText = [method, path, op.summary, op.description, JSON.stringify(op.responses)].join(' ').toLowerCase()
  return el(
    'details',
    { class: 'op', id: op.operationId, 'data-search': searchText },
    el(
      'summary',
      {},
      el('span', { class: 'method', 'data-method': method }, method.toUpperCase()),
      el('span', { class: 'path' }, path),
      el('span', { class: 'summary' }, inline(op.summary ?? '')),
      secured ? el('span', { class: 'lock' }, 'bearer token') : null,
    ),
    el(
      'div',
      { class: 'body' },
      op.description ? el('p', {}, inline(op.description)) : null,
      parametersTable(op.parameters),
      op.requestBody ? [el('h4', {}, 'Request body (JSON)'), el('pre', {}, pretty(op.requestBody.content['application/json'].schema, doc))] : null,
      success?.[1].content ? [el('h4', {}, `Success body (${success[0]})`), el('pre', {}, pretty(success[1].content['application/json']?.schema, doc))] : null,
      el('h4', {}, 'Responses'),
      responsesTable(op.responses, doc),
    ),
  )
}

async function main() {
  const doc = await fetch('/api/openapi.json').then((r) => r.json())
  $('title').textContent = doc.info.title
  $('version').textContent = `v${doc.info.version} · OpenAPI ${doc.openapi}`
  $('description').replaceChildren(...inline(doc.info.description))
  const groups = new Map((doc.tags ?? []).map((tag) => [tag.name, []]))
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? 'other'
      if (!groups.has(tag)) groups.set(tag, [])
      groups.get(tag).push(operationBlock(path, method, op, doc))
    }
  }
  const tagText = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description]))
  $('operations').replaceChildren(
    ...[...groups.entries()].filter(([, ops]) => ops.length).flatMap(([tag, ops]) => [el('h2', {}, `${tag} — `, inline(tagText.get(tag) ?? '')), ...ops]),
  )
  $('filter').addEventListener('input', (event) => {
    const needle = event.target.value.trim().toLowerCase()
    for (const block of document.querySelectorAll('.op')) block.hidden = needle !== '' && !block.dataset.search.includes(needle)
  })
  if (location.hash) document.getElementById(location.hash.slice(1))?.setAttribute('open', '')
}

main().catch((error) => {
  $('operations').textContent = `Could not load the API document: ${error.message}`
})
