import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox'] });
const p = await b.newPage({ viewport: { width: 1400, height: 900 } });
const code = `import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P
mesh = jax.make_mesh((2, 2), ('a', 'b'))
f = jax.shard_map(lambda v: jax.lax.psum(v, 'a'), mesh=mesh, in_specs=P('a', 'b'), out_specs=P(None, 'b'))
result = f(jnp.arange(8.0).reshape(2, 4))
`;
await p.goto(process.argv[2] + '#devices=4&code=' + Buffer.from(code).toString('base64url'));
await p.waitForFunction(() => Number(document.body.dataset.runs || 0) >= 1, null, { timeout: 60000 });
console.log(await p.textContent('#error'), '|', await p.textContent('#result'), '|', await p.textContent('#status'));
await b.close();
