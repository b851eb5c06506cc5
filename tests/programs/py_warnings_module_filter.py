# Filters by module: a plain name matches only the whole module name, a
# pattern is a regular expression that must match all of it.
import warnings


def outcome(**filter_args):
    warnings.resetwarnings()
    warnings.filterwarnings('error', **filter_args)
    try:
        warnings.warn('look', UserWarning)
        return 'passed'
    except UserWarning as e:
        return f'raised {e}'


print(outcome(module='__main__'))
print(outcome(module='__main'))
print(outcome(module='main'))
print(outcome(module='__ma.n__'))
print(outcome(module='_+main_+'))
print(outcome(module='other|__main__'))
print(outcome(module='__MAIN__'))
warnings.resetwarnings()
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter('ignore')
    warnings.filterwarnings('always', module='__main__')
    warnings.warn('kept')
    warnings.warn('again')
result = [str(w.message) for w in seen]
print(result)
