// The guided tour: three steps through the examples, each loading one (as
// the Example menu does, so edits are kept unless the visitor agrees),
// waiting for its run, picking the map that shows the point, and marking
// the part of the device view it is about.

const STEPS = [
  {
    file: 'psum_2d.py',
    title: 'What psum does',
    text: 'Every device of the 2x4 mesh holds one 2x2 block of x. psum(block, \'y\') adds up the blocks of the '
      + 'devices in the same \'y\' group (a row of the mesh) and hands each of them the total. The marked card draws '
      + 'the groups on the mesh: press ▶ to watch the values travel and add up. The two rows still hold different '
      + 'sums, which is why out_specs keeps \'x\'.',
    focus: () => document.querySelector('.collective[data-name=psum]'),
  },
  {
    file: 'tour.py',
    title: 'Why pmean(grad) inside shard_map is a sum',
    text: 'The weight w is replicated (P()) and each device differentiates its own part of the loss. With '
      + 'check_vma=True, the default, w enters the body through an implicit pvary (it becomes varying over '
      + '\'data\'), and the transpose of a pvary is a psum: the gradient each device gets is already the sum over '
      + 'all 8 devices, so pmean of it gives that sum back. With check_vma=False there is no pvary, every device keeps '
      + 'its own gradient, and pmean averages them. The marked note is the map where this happens.',
    focus: () => pickMap((body) => /check_vma=True/.test(textOf(body, '.grad-explain')), '.grad-explain'),
  },
  {
    file: 'jit_mlp_auto.py',
    title: 'What jit inserts for a model-parallel layer',
    text: 'No shard_map here: the parameters and the batch are placed with NamedSharding and the step is a plain '
      + 'jax.jit. As XLA does, shardlab splits the jitted step into one program per device and inserts a collective '
      + 'wherever an operation needs blocks that other devices hold; a product that contracts the dimension split '
      + 'over \'model\' leaves partial sums, which are added across \'model\'. Each inserted collective names the '
      + 'line that needed it: the marked label shows it in the code, and the per-device program is one click away.',
    focus: () => document.querySelector('.collective .collective-line'),
  },
];

const textOf = (root, selector) => [...root.querySelectorAll(selector)].map((e) => e.textContent).join(' ');

// Selects the first map of the report whose view satisfies `wanted`, and
// returns its element matching `selector`.
function pickMap(wanted, selector) {
  const select = document.getElementById('map-select');
  const body = document.querySelector('.map-body');
  if (!select || !body) return null;
  for (const option of select.options) {
    select.value = option.value;
    select.dispatchEvent(new Event('change'));
    if (wanted(body)) return body.querySelector(selector);
  }
  return null;
}

/**
 * The tour in `panel` (title, text, step count, Back / Next / Close),
 * started by `button`. `choose(file)` loads and runs an example and
 * resolves to false when the visitor kept their edits instead.
 */
export function setUpGuide(panel, button, choose) {
  const $ = (name) => panel.querySelector(`[data-guide=${name}]`);
  let at = -1;
  let marked = null;
  const mark = (node) => {
    if (marked) marked.classList.remove('guide-focus');
    marked = node;
    if (!node) return;
    node.classList.add('guide-focus');
    node.scrollIntoView({ block: 'center' });
  };
  const show = async (i) => {
    at = i;
    const step = STEPS[i];
    panel.hidden = false;
    $('count').textContent = `step ${i + 1} of ${STEPS.length}`;
    $('title').textContent = step.title;
    $('text').textContent = step.text;
    $('back').disabled = i === 0;
    $('next').disabled = i === STEPS.length - 1;
    mark(null);
    if (!(await choose(step.file)) || at !== i) return;
    mark(step.focus());
  };
  button.addEventListener('click', () => show(0));
  $('back').addEventListener('click', () => at > 0 && show(at - 1));
  $('next').addEventListener('click', () => at < STEPS.length - 1 && show(at + 1));
  $('close').addEventListener('click', () => {
    at = -1;
    mark(null);
    panel.hidden = true;
  });
}
