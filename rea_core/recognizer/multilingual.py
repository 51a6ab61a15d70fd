"""Standing instructions in French, German, Spanish, Italian and Portuguese (issue 26).

The shipped stage 2 reads MiniLM embeddings of an English model and English cue words, so it
scores "À partir de maintenant, réponds-moi en français" near 0. No multilingual encoder is
installable offline here, so these languages are covered by cue lexicons of the same kinds
stage 1 uses for English, one list per language, each a closed grammatical class rather than a
list of example instructions:

* ``persistence``: how long a wish lasts ("à partir de maintenant", "ab jetzt", "de ahora en
  adelante", "d'ora in poi", "a partir de agora", "never again" forms);
* ``reply_scope``: which replies it covers: all / each / your + a reply noun ("toutes tes
  réponses", "jede Antwort", "en todas tus respuestas", "ogni risposta", "cada resposta"), a
  standing condition on the assistant ("chaque fois que tu", "wenn du mir", "cada vez que me");
* ``fact``: a first-person fact with "keep it in mind" ("tiens-en compte", "berücksichtige das");
* ``self_statement``: the user's own resolution ("j'essaie", "versuche ich", "intento", "provo",
  "estou tentando"): the persistence words bind the user, not the assistant;
* ``one_off``: "pour cette réponse seulement", "nur für diese Antwort", "solo para esta respuesta".

``multilingual_rule`` says global where a persistence or reply-scope cue fires and no self
statement, one-off marker or content frame (``addressee.py``) does. Pure: no model, no I/O.
"""

from __future__ import annotations

import re

from .addressee import content_frame

_I = re.IGNORECASE

_REPLY_NOUN = (
    r"(réponses?|messages?|suggestions?|recommandations?|explications?|recettes?|conseils?"
    r"|\w*antwort(en)?|\w*nachricht(en)?|\w*vorschl[aä]\w*|\w*empfehlung(en)?|\w*erklärung(en)?|\w*rezept\w*"
    r"|respuestas?|mensajes?|recetas?|sugerencias?|recomendaciones?|explicaciones?|consejos?"
    r"|rispost[ae]|messaggi|ricett[ae]|suggerimenti|consigli|spiegazioni"
    r"|respostas?|mensagens?|receitas?|sugestões|sugestão|recomendações|explicações|conselhos?)"
)

PERSISTENCE = {
    "fr": r"\bà partir d(e |')(maintenant|aujourd'hui|ce moment|là|demain)|\bdésormais\b|\bdorénavant\b"
    r"|\bdès (maintenant|à présent)\b|\bà l'avenir\b|\bpour (toute )?la suite\b|\bjusqu'à nouvel ordre\b"
    r"|\bpour (tout )?le reste de (la|notre|cette) (conversation|discussion)\b|\bplus jamais\b|\bne \w+ plus\b"
    r"|\bn'\w+ plus\b",
    "de": r"\bab (jetzt|sofort|heute|nun|morgen|hier)\b|\bvon (jetzt|nun|heute) an\b|\bin zukunft\b|\bkünftig\b"
    r"|\bzukünftig\b|\bfortan\b|\bfür den rest (des|unseres|dieses) \w+|\bbis auf weiteres\b|\bnie (mehr|wieder)\b"
    r"|\bkeine\w* .{0,30}\bmehr\b",
    "es": r"\ba partir de (ahora|hoy|este momento|mañana)\b|\bde ahora en adelante\b|\bdesde (ahora|hoy)\b"
    r"|\ben adelante\b|\b(durante|por|para) (todo )?el resto de\b|\bde aquí en adelante\b|\bhasta nuevo aviso\b"
    r"|\ben lo sucesivo\b|\bno vuelvas a\b|\bnunca más\b|\bya no\b",
    "it": r"\bd'ora in (poi|avanti)\b|\bda (ora|adesso|oggi|domani|qui) in (poi|avanti)\b|\bd'ora innanzi\b"
    r"|\bper (tutto )?il resto (della|di questa|di) \w+|\bfino a nuovo ordine\b|\bin futuro\b|\bmai più\b"
    r"|\bnon \w+ più\b",
    "pt": r"\ba partir de (agora|hoje|amanhã)\b|\bdaqui (pra|para a|para|em) frente\b|\bde agora em diante\b"
    r"|\b(pelo|durante o|no|para o) resto d[ae] \w+|\baté (nova|segunda) ordem\b|\bdoravante\b|\bnunca mais\b"
    r"|\bnão \w+ mais\b|\bno futuro\b",
}

REPLY_SCOPE = {
    "fr": rf"\b(toutes?|tous|chaque|tes|vos|dans les|aux) ((tes|vos|les|mes|de tes) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\b(chaque|à chaque) fois que (tu|vous)\b|\b(quand|lorsque) (tu|vous) (me|m')",
    "de": rf"\b(jede[nmrs]?|alle[nmrs]?|deine[nmrs]?|in den|bei den) (\w+ )?{_REPLY_NOUN}\b"
    r"|\b(jedes mal|immer|wann immer),? wenn du\b|\bwenn du mi(r|ch)\b",
    "es": rf"\b(todas?|todos|cada|tus|en las|en los) ((las|los|tus) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\bcada vez que\b|\bcuando me \w+(as|es)\b|\bsiempre que\b",
    "it": rf"\b(tutte?|tutti|ogni|le tue|i tuoi|nelle|nei) ((le|i|tue|tuoi) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\bogni volta che\b|\bquando mi \w+i\b|\bsempre quando\b",
    "pt": rf"\b(todas?|todos|cada|tuas|suas|nas|nos) ((as|os|tuas|suas) )?(\w+ )?{_REPLY_NOUN}\b"
    r"|\bsempre que\b|\bquando me \w+r(es)?\b|\bcada vez que\b",
}

FACT = {
    "fr": r"\b(je suis|j'ai|je ne (mange|bois|peux)|je vis|j'habite|je travaille)\b.*\b(tiens?[- ]en compte"
    r"|prends?[- ]en compte|garde[sz]? (ça|cela|le) en (tête|mémoire)|n'oublie pas)",
    "de": r"\b(ich bin|ich habe|ich esse|ich lebe|ich wohne|ich arbeite)\b.*\b(berücksichtig\w*|denk\w* daran"
    r"|beachte\w*|behalte?\w* das im (kopf|hinterkopf))",
    "es": r"\b(soy|tengo|estoy|vivo|trabajo|no (como|puedo|bebo))\b.*\b(tenlo|ténganlo|tómalo|tenga?lo) en cuenta"
    r"|\bten(ga)? en cuenta\b",
    "it": r"\b(sono|ho|vivo|lavoro|non (mangio|posso|bevo))\b.*\b(tienine conto|tienilo a mente|tieni(ne)? conto"
    r"|ricordatelo|tienine presente)",
    "pt": r"\b(sou|tenho|estou|moro|vivo|trabalho|não (como|posso|bebo))\b.*\b(leve?(-o)? isso em (conta"
    r"|consideração)|tenha isso em (conta|mente)|tem isso em conta|lembra-te disso|considere isso)",
}

SELF_STATEMENT = {
    "fr": r"\b(j'|je )(essaie|vais|veux|compte|me suis|ai décidé|promets)",
    "de": r"\b(versuche|will|werde|möchte|habe) ich\b|\bich (versuche|will|werde|möchte|habe mir)\b",
    "es": r"\b(intento|voy a|quiero|trato de|me propongo|he decidido)\b",
    "it": r"\b(provo|cerco di|voglio|ho deciso|mi impegno)\b",
    "pt": r"\b(estou tentando|estou a tentar|tento|vou|quero|decidi)\b",
}

ONE_OFF = {
    "fr": r"\b(pour|dans) (cette|ta prochaine) (réponse|fois)\b|\bjuste cette fois\b|\bseulement (pour )?cette\b",
    "de": r"\b(nur )?(für|in) (diese|deine nächste) (antwort|mal)\b|\bnur dieses mal\b",
    "es": r"\b(solo |sólo )?(para|en) (esta|tu próxima) (respuesta|vez)\b|\bsolo esta vez\b",
    "it": r"\b(solo )?(per|in) (questa|la prossima) (risposta|volta)\b|\bsolo questa volta\b",
    "pt": r"\b(só |apenas )?(para|nesta|na) (esta |próxima )?(resposta|vez)\b|\bsó desta vez\b",
}
LANGS = tuple(PERSISTENCE)


def _compile(table: dict[str, str]) -> dict[str, re.Pattern]:
    return {lang: re.compile(rx, _I) for lang, rx in table.items()}


_PERSISTENCE, _SCOPE, _FACT = _compile(PERSISTENCE), _compile(REPLY_SCOPE), _compile(FACT)
_SELF, _ONE_OFF = _compile(SELF_STATEMENT), _compile(ONE_OFF)
# Right after a persistence cue, a 1st-person singular verb (es/it/pt drop the pronoun: "intento", "provo").
_FIRST_SG_AFTER = re.compile(r"^[\s,]*(\w+'?)", _I)
_FIRST_SG = re.compile(r"^(je|j'|ich|yo|io|eu|estou|vou|sto|\w{3,}o)$", _I)
_NOT_FIRST_SG = frozenset("solo sólo nunca todo como algo pero tanto cuando quando ancora sempre no non".split())


def multilingual_cues(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Names of the cues that fire ("fr:persistence", ...) and their spans."""
    names, spans = [], []
    for kind, table in (("persistence", _PERSISTENCE), ("scope", _SCOPE), ("fact", _FACT)):
        for lang, rx in table.items():
            found = list(rx.finditer(text))
            if found:
                names.append(f"{lang}:{kind}")
                spans += [m.span() for m in found]
    return names, spans


def self_statement(text: str) -> bool:
    """The user states their own resolution ("à partir de maintenant j'essaie ...")."""
    if any(rx.search(text) for rx in _SELF.values()) and not re.search(
        r"\b(que tu|dass du|que (me )?\w+es\b|che tu|que você)", text, _I
    ):
        return True
    for rx in _PERSISTENCE.values():
        for m in rx.finditer(text):
            word = _FIRST_SG_AFTER.match(text[m.end() :])
            if word and _FIRST_SG.match(word.group(1)) and word.group(1).casefold() not in _NOT_FIRST_SG:
                return True
    return False


def multilingual_rule(text: str) -> tuple[str | None, tuple[str, ...]]:
    """("global", cues) for a standing instruction in fr/de/es/it/pt; (None, cues) otherwise.

    Cues name the language and kind that fired, or the frame that vetoed them ("frame:task").
    """
    names, spans = multilingual_cues(text)
    if not names:
        return None, ()
    if any(rx.search(text) for rx in _ONE_OFF.values()):
        return None, (*names, "one-off")
    if self_statement(text):
        return None, (*names, "self-statement")
    frame = content_frame(text, spans)
    if frame is not None:
        return None, (*names, f"frame:{frame}")
    return "global", tuple(names)
