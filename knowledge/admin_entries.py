"""The admin page that writes an answer into a knowledge base as an FAQ entry (`knowledge.written`).

Reached from the knowledge-gap report ("Write an answer" beside each question, with the question
and its closest base filled in) or directly; needs the permission to add documents.
"""

from django import forms
from django.contrib import messages
from django.http import HttpResponseRedirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from knowledge import written
from knowledge.admin_views import job_url, render, require
from knowledge.exceptions import KnowledgeError
from knowledge.models import SERVED, KnowledgeBase


class EntryForm(forms.Form):
    knowledge_base = forms.ModelChoiceField(queryset=KnowledgeBase.objects.filter(**SERVED).order_by("name"),
                                            label=gettext_lazy("Knowledge base"))
    question = forms.CharField(label=gettext_lazy("Question"), max_length=written.MAX_QUESTION_CHARS,
                               widget=forms.TextInput(attrs={"size": 80}))
    answer = forms.CharField(label=gettext_lazy("Answer"), max_length=written.MAX_ANSWER_CHARS,
                             widget=forms.Textarea(attrs={"rows": 10, "cols": 80, "autofocus": True}),
                             help_text=gettext_lazy("Sent to customers word for word when the question matches "
                                                    "this entry clearly; keep it complete and short."))


def write_entry(model_admin, request):
    require(request, "knowledge.add_document")
    initial = {"question": request.GET.get("question", "")[:written.MAX_QUESTION_CHARS]}
    if base := KnowledgeBase.objects.filter(**SERVED, name=request.GET.get("base", "")).first():
        initial["knowledge_base"] = base
    form = EntryForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            document, job = written.write_entry(data["knowledge_base"], question=data["question"],
                                                answer=data["answer"], user=request.user)
        except KnowledgeError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("The answer is being indexed into “%(document)s” of %(base)s; it answers "
                                        "its question word for word once the job ends.")
                             % {"document": document.title, "base": data["knowledge_base"].name})
            return HttpResponseRedirect(job_url(job))
    return render(model_admin, request, "admin/knowledge/knowledgebase/write_entry.html", _("Write an answer"),
                  form=form)
