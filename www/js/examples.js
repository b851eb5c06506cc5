// The programs the Example menu offers (files in www/examples/).
export const EXAMPLES = [
  { file: 'psum_2d.py', title: '2-D mesh: psum over one axis' },
  { file: 'ppermute_ring.py', title: 'ppermute ring' },
  { file: 'gather_scatter.py', title: 'psum_scatter + all_gather' },
  { file: 'all_to_all.py', title: 'all_to_all' },
  { file: 'sharded_arrays.py', title: 'Sharded arrays: device_put, jit out_shardings, typeof' },
  { file: 'explicit_sharding.py', title: 'Explicit sharding: typeof, out_sharding, reshard' },
  { file: 'jit_mlp_auto.py', title: 'An MLP under jit: collectives the compiler inserts' },
  { file: 'tensor_parallel_mlp.py', title: 'Tensor-parallel MLP with grads' },
  { file: 'data_parallel_train.py', title: 'Data-parallel training (20 steps)' },
  { file: 'fsdp_all_gather.py', title: 'FSDP: sharded parameters, all_gather, reduce-scattered grads' },
  { file: 'nnx_fsdp.py', title: 'FSDP with Flax NNX: partitioned parameters, Adam under nnx.jit' },
  { file: 'pipeline_scan.py', title: 'Pipeline parallelism: stages, lax.scan and ppermute' },
  { file: 'tour.py', title: 'Tour of the SPMD model' },
  { file: 'seed000_example.py', title: 'psum on a 1-device mesh' },
  { file: 'seed002_example1.py', title: 'pmap with psum' },
  { file: 'seed003_example.py', title: 'vmap vs shard_map' },
  { file: 'seed001_example_real_corrected.py', title: 'Flax Dense layer under shard_map' },
  { file: 'seed004_production_corrected_pmean.py', title: 'NNX: one optimizer update with pmean(grads)' },
  { file: 'long_loop.py', title: 'A long loop (try Cancel)' },
];

export async function loadExample(file) {
  const res = await fetch(new URL(`../examples/${file}`, import.meta.url));
  if (!res.ok) throw new Error(`cannot load ${file}: ${res.status}`);
  return res.text();
}
