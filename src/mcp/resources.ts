import { type ApiCaller, getDoc, ToolError } from './api.ts';
import { getContainer } from './tools/containers.ts';

export const GLOSSARY_URI = 'tracker://glossary/milestones';
export const CONTAINER_TEMPLATE = 'tracker://containers/{id}';
const CONTAINER_URI = /^tracker:\/\/containers\/([^/?#]+)$/;

export const STATIC_RESOURCES = [
  {
    uri: GLOSSARY_URI,
    name: 'milestone-glossary',
    title: 'Milestone glossary',
    description: 'Every milestone (event) name the service reports, by category, with its meaning.',
    mimeType: 'text/markdown',
  },
];

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: CONTAINER_TEMPLATE,
    name: 'container',
    title: 'Container',
    description:
      'One container of your account by id: status, milestones, shipment summary and transport events.',
    mimeType: 'application/json',
  },
];

interface Contents {
  uri: string;
  mimeType: string;
  text: string;
}

/** The glossary comes from the API's own catalogue (GET /v2/webhooks/events), so it cannot drift. */
async function glossary(api: ApiCaller): Promise<Contents[]> {
  const doc = await getDoc(api, '/webhooks/events');
  const lines = ['# Milestone glossary', ''];
  for (const c of doc.data ?? []) {
    lines.push(`## ${c.attributes.name}`, '');
    for (const e of c.attributes.events as Array<{ name: string; description: string }>)
      lines.push(`- \`${e.name}\`: ${e.description}`);
    lines.push('');
  }
  return [{ uri: GLOSSARY_URI, mimeType: 'text/markdown', text: lines.join('\n') }];
}

export async function readResource(api: ApiCaller, uri: string): Promise<Contents[]> {
  if (uri === GLOSSARY_URI) return glossary(api);
  const m = CONTAINER_URI.exec(uri);
  if (!m) throw new ToolError(`Unknown resource ${uri}. Resources: ${GLOSSARY_URI}, ${CONTAINER_TEMPLATE}.`);
  const result = await getContainer.run(api, {
    id: decodeURIComponent(m[1]!),
    include: ['transport_events'],
  });
  return [{ uri, mimeType: 'application/json', text: JSON.stringify(result.data, null, 2) }];
}
