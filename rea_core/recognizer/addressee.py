"""Who an instruction binds: the assistant's later replies, or the content of a task.

"From now on, answer in French" binds the assistant. The same words inside content the user
asks for do not: a story in which a character decides something "from now on", a house rule or
a company policy to draft, a sentence to translate, quoted text. This module measures, per
sentence, the features that tell them apart (no model, no I/O):

* ``quoted_cue``: the cue that makes the sentence look standing lies inside quotation marks;
* ``task_frame``: a content-production verb (write, draft, compose, translate, summarize,
  rewrite ... in the six covered languages) opens the sentence and governs an object that is not
  the assistant's replies ("a story", "une règle", "eine Hausordnung"), or a colon/quote follows it;
* ``third_party``: the rule binds someone else: a modal ("must", "should", "doivent", "müssen",
  "deben", "devono", "devem") whose subject is neither "you" nor the assistant's replies
  ("employees must", "he will", "dishes must be washed");
* ``addresses_assistant``: second-person reply scope ("your replies", "you reply", "with me").

``content_frame`` combines them: the name of the frame, or None. Where a frame is present the
rule stage does not decide alone, and stage 2's P(global) is down-weighted (``recognize.py``).
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# Quotation spans: "...", “...”, «...», „...“, ‚...‘ (straight single quotes are apostrophes too often).
_QUOTES = re.compile(
    r'"[^"]{3,}"|“[^”]{3,}”|«[^»]{3,}»|„[^“”]{3,}[“”]|‚[^‘’]{3,}[‘’]|‘[^’]{6,}’'
    r"|(?<!\w)'[^']{6,}'(?!\w)"  # straight single quotes only with no letter outside them (not "don't")
)

# Content-production verbs, imperative / infinitive forms, per language (en fr de es it pt).
_PRODUCE = (
    r"write|draft|compose|word|phrase|create|make up|come up with|give me|generate|design|craft|prepare"
    r"|translate|summari[sz]e|rewrite|rephrase|paraphrase|proofread|edit|reword|turn|tell me"
    r"|écri[st]\w*|rédige\w*|tradui[st]\w*|résume\w*|reformule\w*|compose[zs]?|invente\w*|corrige\w*"
    r"|schreib\w*|formulier\w*|übersetz\w*|fass\w*|verfass\w*|entwirf|entwerf\w*|erfinde\w*|korrigier\w*"
    r"|escrib\w*|escríb\w*|redact\w*|traduc\w*|tradu[zc]\w*|resum\w*|reescrib\w*|compón\w*|inventa\w*"
    r"|scriv\w*|redig\w*|tradu\w*|riassum\w*|riscriv\w*|compon\w*|invent\w*"
    r"|escrev\w*|redij\w*|redige\w*|reescrev\w*|componh\w*"
    r"|crée[rz]?|crées|erstell\w*|crea|crear|creare|cria|crie|criar|prépar\w*|prepar\w*|redáct\w*|escribí\w*"
    r"|bereite\w*"
)
# What may precede the verb at the opening of the sentence ("Can you help me word ...", "I need ...").
_LEAD = (
    r"(?:(?:please|pls|ok(?:ay)?|now|so|hey|can|could|would|will|you|help|me|us|i|need|want|would|like|'d|to"
    r"|peux|pourrais|tu|vous|me|m'|kannst|könntest|du|bitte|mir|puedes|podrías|por favor|puoi|potresti"
    r"|per favore|podes|pode|podias|você|por|favor|s'il|te|plaît|aide|aide-moi|aidez-moi|hilf|ayuda|ayúdame|ayudame"
    r"|aiutami|aiuta|ajuda|ajude|a|à|beim|bei|dabei)[\s,]+)*"
)
_FRAME_VERB = re.compile(rf"^\W*{_LEAD}(?:[mt]')?(?P<verb>{_PRODUCE})\b(?P<rest>.*)$", _I | re.S)
# "I need a monologue ...", "J'ai besoin d'une règle ...": a request for a piece of content.
_NEED_CONTENT = re.compile(
    r"^\W*(i need|i want|i'd like|we need|j'ai besoin d'|je veux|ich brauche|ich möchte|necesito|quiero"
    r"|ho bisogno di|voglio|preciso de|quero)\s*(a|an|une?|eine?[nm]?|una?|um|uma)\b"
    r"|^\W*how (would|do|can|should|could) (i|you|we) (say|write|phrase|word|put|translate)\b",
    _I,
)
# The object is the assistant's own replies: "write all your answers ...", "give me answers ...".
_REPLY_OBJECT = re.compile(
    r"^\W*(?:me\s+|us\s+|to me\s+)?(?:all\s+|every\s+|each\s+|your\s+|tes\s+|vos\s+|toutes?\s+|deine\w*\s+"
    r"|alle\w*\s+|jede\w*\s+|tus\s+|todas?\s+|cada\s+|tue\s+|tutte?\s+|ogni\s+|tuas\s+|suas\s+)+"
    r"|^\W*(?:me\s+)?(?:\w+\s+)?(answers?|repl(?:y|ies)|responses?|explanations?|réponses?|antwort\w*"
    r"|respuestas?|rispost[ae]|respostas?)\b",
    _I,
)
# Right after the verb: a preposition, adverb or manner word means the verb is about how to write.
_MANNER = re.compile(
    r"^\W*(?:to me\s+|me\s+)?(in|with|using|like|as|only|without|more|less|shorter|longer|briefly|simply"
    r"|clearly|formally|casually|back|everything|anything|whatever|en|avec|sans|comme|auf|in|mit|ohne|wie"
    r"|con|sin|como|em|com|sem|in|senza|for|during|from|until|always|never|für|während|bis|ab|immer|nie|pour"
    r"|pendant|dans|à|toujours|jamais|para|por|durante|siempre|nunca|per|da|sempre|mai)\b",
    _I,
)
_CONTENT_FOLLOWS = re.compile(r"^[^.?!]{0,60}[:«“„\"]")

_MODAL = re.compile(
    r"\b(must|should|shall|will|have to|has to|need to|needs to|are to|is to|may not|can't|cannot|are required to"
    r"|doi(?:t|vent|s)|devr\w+|müss\w*|muss|soll\w*|dürf\w*|deben?|tienen que|tiene que|han de|devono|deve"
    r"|vanno|devem|tem que|têm que)\b",
    _I,
)
_SECOND_PERSON = re.compile(
    r"\b(you|your|yours|tu|vous|ton|ta|tes|votre|vos|du|dein\w*|Sie|Ihr\w*|tú|usted|tus|tuo|tua|tuoi|tue"
    r"|você|vocês|teu|tua|teus|tuas)\b|\b(answers?|repl(y|ies)|responses?|réponses?|antwort\w*|respuestas?"
    r"|rispost[ae]|respostas?)\b",
    _I,
)
# The assistant's later replies named as what the rule covers: "every answer", "your replies", "you reply".
_ASSISTANT_SCOPE = re.compile(
    r"\b(every|each|all|any|your|all of your|in) (\w+ ){0,2}(answers|answer|repl(y|ies)|responses?|outputs?)\b"
    r"|\byou (reply|answer|respond|write to me|talk to me)\b|\b(with|to) me\b"
    r"|\b(tes|vos|toutes? (tes|vos|les)|chaque|deine\w*|jede\w*|alle\w*|tus|todas (tus|las)|cada|tue|tutte le"
    r"|ogni|tuas|todas as) (\w+ )?(réponses?|\w*antwort(en)?|respuestas?|rispost[ae]|respostas?)\b",
    _I,
)
_FIRST_PERSON = re.compile(r"\b(i|we|je|j'|nous|ich|wir|yo|nosotros|io|noi|eu|nós)\b", _I)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted passage."""
    return [m.span() for m in _QUOTES.finditer(text)]


def quoted_cue(text: str, cue_spans: list[tuple[int, int]]) -> bool:
    """Every cue occurrence lies inside a quoted passage (the cue is content, not a request)."""
    quotes = quoted_spans(text)
    if not cue_spans or not quotes:
        return False
    return all(any(qs <= s and e <= qe for qs, qe in quotes) for s, e in cue_spans)


def task_frame(sentence: str) -> bool:
    """A content-production verb opens the sentence and its object is content, not the assistant's replies."""
    if _NEED_CONTENT.search(sentence):
        return True
    m = _FRAME_VERB.match(sentence)
    if m is None:
        return False
    rest = m.group("rest")
    if _REPLY_OBJECT.match(rest):
        return False
    if _CONTENT_FOLLOWS.match(rest):
        return True
    return not _MANNER.match(rest)


_OUTPUT_UNIT = re.compile(
    r"\b(sentences?|paragraphs?|lines?|words?|bullets?|lists?|titles?|headings?|outputs?|code|examples?|phrases?"
    r"|phrases?|sätze?|satz|frases?|frasi|advice|suggestions?|recommendations?|ideas?|recipes?|tips?|plans?)\b",
    _I,
)
# Reported speech: "my teacher always says to ...", "ma mère dit que ...": the rule is someone else's.
_HABIT_OF_OTHERS = re.compile(
    r"^\W*(my|our|his|her|their) (\w+ ){1,2}(always|never|often|usually|constantly|keeps)\b", _I
)  # "My boss always answers emails in all caps": someone else's habit
_REPORTED = re.compile(
    r"^\W*(my|our|his|her|their|the|mon|ma|mes|mein\w*|mi|mis|il mio|la mia|mio|mia|o meu|a minha|meu|minha)"
    r" (\w+ ){0,2}(always |often |never )?"
    r"(says?|said|tells?|told|thinks?|wants?|wanted|asked|decided|insists?|dit|disait|veut|sagt|sagte|will|dice"
    r"|decía|quiere|diz|dizia|quer|vuole)\b",
    _I,
)


def third_party(sentence: str) -> bool:
    """A modal whose subject (the words before it in its clause) is neither the user, the assistant nor its replies."""
    for m in _MODAL.finditer(sentence):
        clause = re.split(r"[,:;.!?«»“”\"]|\b(and|that|que|dass|che)\b", sentence[: m.start()], flags=_I)[-1] or ""
        words = clause.split()[-4:]
        if not words:
            continue
        subject = " ".join(words)
        if _SECOND_PERSON.search(subject) or _FIRST_PERSON.search(subject):
            continue
        if re.search(r"\b(it|this|that|everything|anything|ça|cela|das|es|esto|eso|questo|isso)\b", subject, _I):
            continue
        if _OUTPUT_UNIT.search(subject):  # "each sentence must ...": a unit of the reply binds the assistant
            continue
        return True
    if _HABIT_OF_OTHERS.search(sentence):
        return True
    return bool(_REPORTED.search(sentence)) and not _SECOND_PERSON.search(sentence.split(",")[0])


_SELF_AFTER = re.compile(r"^[\s,]*(that )?(i|i'm|i'll|i've|i'd|we|we'll|my)\b", _I)
_SELF_BEFORE = re.compile(r"\b(i|i'd|i'll|i've|we|my goal|myself)\b[^,.;:!?]{0,30}$", _I)


def self_bound(sentence: str, cue_spans: list[tuple[int, int]]) -> bool:
    """The persistence words bind the user ("from now on I'm trying to ...") and nothing addresses the assistant."""
    if _SECOND_PERSON.search(sentence):
        return False
    return any(_SELF_AFTER.match(sentence[e:]) or _SELF_BEFORE.search(sentence[:s]) for s, e in cue_spans)


def addresses_assistant(sentence: str) -> bool:
    """The rule names the assistant's later replies: "every answer", "your replies", "you reply"."""
    return bool(_ASSISTANT_SCOPE.search(sentence))


def content_frame(sentence: str, cue_spans: list[tuple[int, int]] = ()) -> str | None:
    """The frame that makes a standing-looking sentence the content of a task, or None.

    Args:
        sentence: One sentence (or a whole short message).
        cue_spans: Where the persistence / scope cues matched, to test whether they are quoted.

    Returns:
        "quoted", "task", "third-party" or "self"; None when the sentence is addressed to the assistant.
    """
    if quoted_cue(sentence, list(cue_spans)):
        return "quoted"
    if addresses_assistant(_QUOTES.sub(" ", sentence)):  # "with me" inside a quote names no one
        return None
    if task_frame(sentence):
        return "task"
    if third_party(sentence):
        return "third-party"
    if self_bound(sentence, list(cue_spans)):
        return "self"
    return None
