// shardlab: JAX-style SPMD programs on simulated devices, from JavaScript.
//
// The package's API. Its pieces:
//   lab.js          the Lab: the run queue, cancelling, restarting workers
//   coordinator.js  the coordinator worker that runs the engine
//   host.js         browsers and Node: starting workers, finding the engine
//   options.js      checking createLab's and run's options
//   errors.js       ShardlabError
export { createLab, Lab } from './lab.js';
export { ShardlabError } from './errors.js';
