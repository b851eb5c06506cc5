export default {
  build: { target: 'es2022' },
};
